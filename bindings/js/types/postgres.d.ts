import type { Entry, ListFilter, Store } from './index.js';

/** The PostgreSQL store (pg 8.x): the Rust host's `idem.effects` table and migrations. */
export class PostgresStore implements Store {
  /** Connect (a pool of `max` connections, default 16) and migrate under sqlx's advisory lock. */
  static connect(url: string, options?: { max?: number; [option: string]: unknown }): Promise<PostgresStore>;
  /** Apply the migrations this package knows to the database behind a `pg.Pool`. */
  static migrate(pool: unknown): Promise<void>;
  /** A store over a `pg.Pool` whose database is migrated. */
  constructor(pool: unknown);
  readonly pool: any;
  get(scope: string, key: string): Promise<Entry | null>;
  insert(entry: Entry): Promise<boolean>;
  update(expectedVersion: number, entry: Entry): Promise<boolean>;
  delete(scope: string, key: string, expectedVersion: number): Promise<boolean>;
  list(scope: string, filter?: ListFilter): Promise<Entry[]>;
  unsettled(scope: string | null, limit: number): Promise<Entry[]>;
  expired(scope: string | null, now: number, limit: number): Promise<Entry[]>;
  close(): Promise<void>;
}

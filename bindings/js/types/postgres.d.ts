import type { ShippedStore } from './index.js';

/** The PostgreSQL store (pg 8.x): the Rust host's `oncely.effects` table and migrations. */
export interface PostgresStore extends ShippedStore {}
export class PostgresStore {
  /**
   * Connect (a pool of `max` connections, default 16) and migrate under sqlx's advisory lock.
   * `onError` hears errors of idle connections the server dropped (default: ignored; the pool
   * replaces them), which would otherwise end the process.
   */
  static connect(url: string, options?: { max?: number; onError?: (error: Error) => void; [option: string]: unknown }): Promise<PostgresStore>;
  /** Apply the migrations this package knows to the database behind a `pg.Pool`. */
  static migrate(pool: unknown): Promise<void>;
  /** A store over a `pg.Pool` whose database is migrated. */
  constructor(pool: unknown);
  readonly pool: any;
}

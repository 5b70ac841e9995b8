import type { ShippedStore } from './index.js';

/** The PostgreSQL store (pg 8.x): the Rust host's `oncely.effects` table and migrations. */
export interface PostgresStore extends ShippedStore {}
export class PostgresStore {
  /**
   * Connect (a pool of `max` connections, default 16) and migrate under sqlx's advisory lock.
   * `onError` hears errors of connections the server dropped while idle or checked out by the
   * store (default: ignored; the pool replaces them), which would otherwise end the process.
   * `connectionTimeoutMillis` defaults to 5000; other options go to `pg.Pool`.
   */
  static connect(
    url: string,
    options?: { max?: number; onError?: (error: Error) => void; connectionTimeoutMillis?: number; [option: string]: unknown },
  ): Promise<PostgresStore>;
  /**
   * Apply the migrations this package knows to the database behind a `pg.Pool`; `onError` hears
   * the migrating client's errors (the server dropping it) instead of the process ending.
   */
  static migrate(pool: unknown, options?: { onError?: (error: Error) => void }): Promise<void>;
  /** A store over a `pg.Pool` whose database is migrated. */
  constructor(pool: unknown);
  readonly pool: any;
}

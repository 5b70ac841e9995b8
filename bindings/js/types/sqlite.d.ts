import type { ShippedStore } from './index.js';

/** The SQLite store (better-sqlite3 12.x): the Rust host's file, schema and migrations. */
export interface SqliteStore extends ShippedStore {}
export class SqliteStore {
  /** Open (creating if needed) and migrate the ledger at `path`. */
  static open(path: string, options?: { busyTimeoutMs?: number }): Promise<SqliteStore>;
  /** A store over an open, migrated better-sqlite3 database. */
  constructor(db: unknown);
  readonly db: unknown;
}

import type { Entry, ListFilter, Store } from './index.js';

/** The SQLite store (better-sqlite3 12.x): the Rust host's file, schema and migrations. */
export class SqliteStore implements Store {
  /** Open (creating if needed) and migrate the ledger at `path`. */
  static open(path: string, options?: { busyTimeoutMs?: number }): Promise<SqliteStore>;
  /** A store over an open, migrated better-sqlite3 database. */
  constructor(db: unknown);
  readonly db: unknown;
  get(scope: string, key: string): Promise<Entry | null>;
  insert(entry: Entry): Promise<boolean>;
  update(expectedVersion: number, entry: Entry): Promise<boolean>;
  delete(scope: string, key: string, expectedVersion: number): Promise<boolean>;
  list(scope: string, filter?: ListFilter): Promise<Entry[]>;
  unsettled(scope: string | null, limit: number): Promise<Entry[]>;
  expired(scope: string | null, now: number, limit: number): Promise<Entry[]>;
  close(): Promise<void>;
}

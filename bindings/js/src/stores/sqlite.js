// SQLite store over better-sqlite3 (12.x): the same file, schema and migrations as the Rust
// host, so JS, Python and Rust workers can share one ledger. WAL journal, synchronous = FULL
// (a commit that returned is on disk), a busy timeout for concurrent writers. A claim is one
// `INSERT … ON CONFLICT DO NOTHING` and every later write one `UPDATE … WHERE version = ?`,
// each atomic under SQLite's write lock.

import Database from 'better-sqlite3';
import { migrateSqlite, sqliteMigrations } from './migrate.js';
import { anonymous, bind, entryFromRow, historyFromRow, recordedFromRow, rowValues, statements } from './sql.js';

const SQL = anonymous(statements('oncely_effects', 'oncely_history', (n) => `?${n}`));

const isBusy = (e) => e && typeof e.code === 'string' && e.code.startsWith('SQLITE_BUSY');

export class SqliteStore {
  /**
   * Open (creating if needed) and migrate the ledger at `path`.
   * Options: `busyTimeoutMs` (default 30 000).
   */
  static async open(path, { busyTimeoutMs = 30_000 } = {}) {
    const db = new Database(path, { timeout: busyTimeoutMs });
    try {
      db.pragma('synchronous = FULL');
      const migrations = await sqliteMigrations();
      // Several processes may open a fresh file at once: the write lock serializes them, and a
      // busy error past the timeout is retried a few times. Switching a fresh file to WAL can
      // answer SQLITE_BUSY at once (without the busy handler) while another opener holds a lock.
      for (let tries = 0; ; tries++) {
        try {
          db.pragma('journal_mode = WAL');
          migrateSqlite(adapter(db), migrations);
          break;
        } catch (e) {
          if (!isBusy(e) || tries >= 20) throw e;
          await new Promise((r) => setTimeout(r, 25 * (tries + 1)));
        }
      }
    } catch (e) {
      db.close();
      throw e;
    }
    return new SqliteStore(db);
  }

  /** A store over an open, migrated better-sqlite3 database. */
  constructor(db) {
    this.db = db;
    const prep = (s, reader) => {
      const st = db.prepare(s.sql);
      if (reader) st.safeIntegers(true);
      return { st, order: s.order };
    };
    this.s = {
      get: prep(SQL.get, true),
      recorded: prep(SQL.recorded),
      insert: prep(SQL.insert),
      update: prep(SQL.update),
      updateKept: prep(SQL.updateKept),
      delete: prep(SQL.delete),
      list: prep(SQL.list, true),
      due: prep(SQL.due, true),
      history: prep(SQL.history, true),
    };
  }

  async get(scope, key) {
    const { st, order } = this.s.get;
    const row = st.get(bind({ order }, [scope, key]));
    return row ? entryFromRow(row) : null;
  }

  /** What a replay compares of the row of `(scope, key)` (its four columns), or null. */
  async recorded(scope, key) {
    const { st, order } = this.s.recorded;
    const row = st.get(bind({ order }, [scope, key]));
    return row ? recordedFromRow(row) : null;
  }

  async insert(entry) {
    const { st, order } = this.s.insert;
    return st.run(bind({ order }, rowValues(entry))).changes === 1;
  }

  async update(expectedVersion, entry, { history = false } = {}) {
    const { st, order } = history ? this.s.updateKept : this.s.update;
    return st.run(bind({ order }, [...rowValues(entry), entry.scope, entry.key, expectedVersion])).changes === 1;
  }

  async delete(scope, key, expectedVersion) {
    const { st, order } = this.s.delete;
    return st.run(bind({ order }, [scope, key, expectedVersion])).changes === 1;
  }

  async list(scope, filter) {
    const { st, order } = this.s.list;
    return st.all(bind({ order }, [scope, filter.state ?? null, filter.tool ?? null, filter.limit])).map(entryFromRow);
  }

  async due(scope, now, limit) {
    const { st, order } = this.s.due;
    return st.all(bind({ order }, [scope ?? null, now, limit])).map(entryFromRow);
  }

  /** The history of `(scope, key)`, oldest first (appended by the insert and each update the core marked). */
  async history(scope, key) {
    const { st, order } = this.s.history;
    return st.all(bind({ order }, [scope, key])).map(historyFromRow);
  }

  async close() {
    this.db.close();
  }
}

function adapter(db) {
  return {
    exec: (sql) => db.exec(sql),
    all: (sql, params) => db.prepare(sql).all(blobs(params)),
    run: (sql, params) => db.prepare(sql).run(blobs(params)),
    transaction: (fn) => {
      db.exec('BEGIN IMMEDIATE');
      try {
        fn();
        db.exec('COMMIT');
      } catch (e) {
        if (db.inTransaction) db.exec('ROLLBACK');
        throw e;
      }
    },
  };
}

const blobs = (params) => params.map((v) => (v instanceof Uint8Array && !Buffer.isBuffer(v) ? Buffer.from(v) : v));

// A store in a Cloudflare Durable Object's SQLite storage (`ctx.storage.sql`), for edge
// functions: the Rust host's SQLite schema and migration bookkeeping, applied with
// `transactionSync`. A Durable Object runs one request's synchronous code at a time and each
// statement is atomic; the ledger's compare-and-swap discipline is the same as everywhere.
//
//   export class LedgerObject extends DurableObject {
//     constructor(ctx, env) {
//       super(ctx, env);
//       ctx.blockConcurrencyWhile(async () => {
//         this.ledger = new Ledger(await DurableObjectStore.open(ctx.storage));
//       });
//     }
//   }

import { migrateSqlite, sqliteMigrations } from './migrate.js';
import { anonymous, bind, entryFromRow, historyFromRow, recordedFromRow, rowValues, statements } from './sql.js';

const SQL = anonymous(statements('oncely_effects', 'oncely_history', (n) => `?${n}`));
// Count the rows a write touched by having it return them.
const RET = ' RETURNING 1';

// Durable Object SQL binds numbers, strings, ArrayBuffers and null.
const value = (v) => (typeof v === 'bigint' ? Number(v) : v instanceof Uint8Array ? v.slice().buffer : v);

export class DurableObjectStore {
  /** Migrate `storage` (a Durable Object's `ctx.storage`) and return a store over it. */
  static async open(storage) {
    const migrations = await sqliteMigrations();
    const sql = storage.sql;
    migrateSqlite(
      {
        exec: (text) => sql.exec(text),
        all: (text, params) => sql.exec(text, ...params.map(value)).toArray(),
        run: (text, params) => sql.exec(text, ...params.map(value)),
        transaction: (fn) => storage.transactionSync(fn),
      },
      migrations,
    );
    return new DurableObjectStore(storage);
  }

  /** A store over a migrated `ctx.storage` (see `open`). */
  constructor(storage) {
    this.sql = storage.sql;
  }

  #all(stmt, args, suffix = '') {
    return this.sql.exec(stmt.sql + suffix, ...bind(stmt, args).map(value)).toArray();
  }

  async get(scope, key) {
    const rows = this.#all(SQL.get, [scope, key]);
    return rows.length ? entryFromRow(rows[0]) : null;
  }

  /** What a replay compares of the row of `(scope, key)` (its four columns), or null. */
  async recorded(scope, key) {
    const rows = this.#all(SQL.recorded, [scope, key]);
    return rows.length ? recordedFromRow(rows[0]) : null;
  }

  async insert(entry) {
    return this.#all(SQL.insert, rowValues(entry), RET).length === 1;
  }

  async update(expectedVersion, entry, { history = false } = {}) {
    return this.#all(history ? SQL.updateKept : SQL.update, [...rowValues(entry), entry.scope, entry.key, expectedVersion], RET).length === 1;
  }

  async delete(scope, key, expectedVersion) {
    return this.#all(SQL.delete, [scope, key, expectedVersion], RET).length === 1;
  }

  async list(scope, filter) {
    return this.#all(SQL.list, [scope, filter.state ?? null, filter.tool ?? null, filter.limit]).map(entryFromRow);
  }

  async due(scope, now, limit) {
    return this.#all(SQL.due, [scope ?? null, now, limit]).map(entryFromRow);
  }

  /** The history of `(scope, key)`, oldest first (appended by the insert and each update the core marked). */
  async history(scope, key) {
    return this.#all(SQL.history, [scope, key]).map(historyFromRow);
  }

  async close() {}
}

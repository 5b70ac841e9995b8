// PostgreSQL store over `pg`: one ledger shared by many workers on many machines, in the Rust
// host's schema (`oncely.effects`) and migration bookkeeping (`oncely._sqlx_migrations`, never
// `public._sqlx_migrations`, where an application's own sqlx migrations live). A claim is one
// `INSERT … ON CONFLICT DO NOTHING`, every later write one `UPDATE … WHERE version = $n`;
// PostgreSQL's row locks make both atomic at the default isolation level.

import pg from 'pg';
import { migratePostgres, postgresMigrations } from './migrate.js';
import { entryFromRow, historyFromRow, recordedFromRow, rowValues, statements } from './sql.js';

const SQL = statements('oncely.effects', 'oncely.history', (n) => `$${n}`);

export class PostgresStore {
  /**
   * Connect to `url` (a pool of `max` connections, default 16) and migrate, holding sqlx's
   * advisory lock so concurrent openers (in any language) are safe. Other options go to
   * `pg.Pool`; `connectionTimeoutMillis` defaults to 5000 (pg's default, 0, waits forever for an
   * unreachable server).
   *
   * The server may go away (a restart, a failover, `pg_terminate_backend`, a pooler's idle
   * timeout). `pg` then emits `'error'` on the pool for each idle connection it drops (and on a
   * client the store has checked out, e.g. while migrating), and an EventEmitter's `'error'`
   * without a listener ends the process. The store listens everywhere and passes the error to
   * `onError` (default: ignore it); the pool has already discarded that connection and the next
   * query opens a new one, so nothing is poisoned. Queries in flight, and every query while the
   * server cannot be reached, fail with a `StorageError` that says why (connection terminated,
   * refused, the server starting up, …). (`test/pg-restart.test.mjs`.)
   */
  static async connect(url, { max = 16, onError = () => {}, connectionTimeoutMillis = 5000, ...poolOptions } = {}) {
    const pool = new pg.Pool({ connectionString: url, max, connectionTimeoutMillis, ...poolOptions });
    pool.on('error', onError);
    try {
      await PostgresStore.migrate(pool, { onError });
    } catch (e) {
      await pool.end().catch(() => {});
      throw e;
    }
    return new PostgresStore(pool);
  }

  /**
   * Apply the migrations this package knows to the database behind `pool`. While the migrating
   * client is checked out, its `'error'` (the server dropping it) goes to `onError` instead of
   * ending the process; a client that failed is destroyed, not returned to the pool.
   */
  static async migrate(pool, { onError = () => {} } = {}) {
    const migrations = await postgresMigrations();
    const client = await pool.connect();
    client.on('error', onError);
    let failure;
    try {
      await migratePostgres(client, migrations);
    } catch (e) {
      failure = e;
      throw e;
    } finally {
      client.removeListener('error', onError);
      client.release(failure);
    }
  }

  /** A store over a `pg.Pool` whose database is migrated. */
  constructor(pool) {
    this.pool = pool;
  }

  async #rows(name, text, values) {
    return (await this.pool.query({ name: `oncely_${name}`, text, values })).rows;
  }

  async get(scope, key) {
    const rows = await this.#rows('get', SQL.get, [scope, key]);
    return rows.length ? entryFromRow(rows[0]) : null;
  }

  /** What a replay compares of the row of `(scope, key)` (its four columns), or null. */
  async recorded(scope, key) {
    const rows = await this.#rows('recorded', SQL.recorded, [scope, key]);
    return rows.length ? recordedFromRow(rows[0]) : null;
  }

  async insert(entry) {
    const r = await this.pool.query({ name: 'oncely_insert', text: SQL.insert, values: rowValues(entry) });
    return r.rowCount === 1;
  }

  async update(expectedVersion, entry, { history = false } = {}) {
    const [name, text] = history ? ['oncely_update_kept', SQL.updateKept] : ['oncely_update', SQL.update];
    const r = await this.pool.query({ name, text, values: [...rowValues(entry), entry.scope, entry.key, expectedVersion] });
    return r.rowCount === 1;
  }

  async delete(scope, key, expectedVersion) {
    const r = await this.pool.query({ name: 'oncely_delete', text: SQL.delete, values: [scope, key, expectedVersion] });
    return r.rowCount === 1;
  }

  async list(scope, filter) {
    return (await this.#rows('list', SQL.list, [scope, filter.state ?? null, filter.tool ?? null, filter.limit])).map(entryFromRow);
  }

  async due(scope, now, limit) {
    return (await this.#rows('due', SQL.due, [scope ?? null, now, limit])).map(entryFromRow);
  }

  /** The history of `(scope, key)`, oldest first (appended by the insert and each update the core marked). */
  async history(scope, key) {
    return (await this.#rows('history', SQL.history, [scope, key])).map(historyFromRow);
  }

  /** End the pool (once; a second call does nothing). */
  async close() {
    if (this.pool.ending || this.pool.ended) return;
    await this.pool.end();
  }
}

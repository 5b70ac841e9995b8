// PostgreSQL store over `pg`: one ledger shared by many workers on many machines, in the Rust
// host's schema (`oncely.effects`) and migration bookkeeping (`oncely._sqlx_migrations`, never
// `public._sqlx_migrations`, where an application's own sqlx migrations live). A claim is one
// `INSERT … ON CONFLICT DO NOTHING`, every later write one `UPDATE … WHERE version = $n`;
// PostgreSQL's row locks make both atomic at the default isolation level.

import pg from 'pg';
import { migratePostgres, postgresMigrations } from './migrate.js';
import { entryFromRow, historyFromRow, recordedFromRow, rowValues, statements } from './sql.js';

const SQL = statements('oncely.effects', 'oncely.history', (n) => `$${n}`);

const SESSION_ATTRS = new Set(['any', 'read-write', 'primary']);

/**
 * @typedef {{ hosts: { host: string, url: string }[], attrs: string }} HostList
 * @typedef {HostList & { options: Record<string, any>, onError: (e: unknown) => void, current: string }} Targets
 */

/**
 * A libpq multi-host URL (`postgres://u@h1:p1,h2:p2/db?target_session_attrs=read-write`) as one
 * URL per host, in order, and what a session must be; null for one host and no
 * `target_session_attrs` (pg reads that URL as it is; it reads neither of these).
 */
/** @param {string} url @returns {HostList | null} */
export function splitHosts(url) {
  const [base, query = ''] = url.split(/\?(.*)/s, 2);
  const params = new URLSearchParams(query);
  const attrs = params.get('target_session_attrs');
  params.delete('target_session_attrs');
  if (attrs !== null && !SESSION_ATTRS.has(attrs)) {
    throw new TypeError(`target_session_attrs=${attrs} is not supported (any, read-write or primary)`);
  }
  const schemeEnd = base.indexOf('://');
  if (schemeEnd < 0) throw new TypeError('a postgres:// URL is expected');
  const start = schemeEnd + 3;
  const slash = base.indexOf('/', start);
  const end = slash < 0 ? base.length : slash;
  const authority = base.slice(start, end);
  const at = authority.lastIndexOf('@');
  const userinfo = authority.slice(0, at + 1);
  const hostList = authority.slice(at + 1);
  if (!hostList.includes(',') && attrs === null) return null;
  const rest = params.toString();
  const hosts = hostList.split(',').map((host) => {
    if (!host) throw new TypeError('an empty host in the host list');
    return { host, url: `${base.slice(0, start)}${userinfo}${host}${base.slice(end)}${rest ? `?${rest}` : ''}` };
  });
  return { hosts, attrs: attrs ?? 'any' };
}

/** Why a connected client's server is not what `attrs` asks for, or null. */
async function refuses(client, attrs) {
  if (attrs === 'read-write') {
    const { rows } = await client.query('SHOW transaction_read_only');
    return rows[0].transaction_read_only === 'on' ? 'read-only (transaction_read_only is on)' : null;
  }
  if (attrs === 'primary') {
    const { rows } = await client.query('SELECT pg_is_in_recovery() AS standby');
    return rows[0].standby ? 'a standby (pg_is_in_recovery())' : null;
  }
  return null;
}

/** A pg.Client class whose connections are refused unless the server is what `attrs` asks. */
function checkedClient(attrs) {
  return class CheckedClient extends pg.Client {
    connect(callback) {
      const done = super.connect().then(async () => {
        const why = await refuses(this, attrs);
        if (why) {
          await /** @type {any} */ (this).end().catch(() => {});
          throw new Error(`the server is ${why}`);
        }
      });
      if (!callback) return done;
      done.then(() => callback(null, this), (e) => callback(e));
      return undefined;
    }
  };
}

/**
 * The first of `targets.hosts`, in order, that accepts a connection within `timeoutMs` and is
 * what `targets.attrs` asks; else an Error saying what each one said.
 */
async function findTarget(targets, timeoutMs) {
  const said = [];
  for (const { host, url } of targets.hosts) {
    const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: timeoutMs });
    client.on('error', () => {});
    try {
      await client.connect();
      const why = await refuses(client, targets.attrs);
      if (!why) return url;
      said.push(`${host}: ${why}`);
    } catch (e) {
      said.push(`${host}: ${e?.message ?? e}`);
    } finally {
      await client.end().catch(() => {});
    }
  }
  throw new Error(`no server of the URL would do: ${said.join('; ')}`);
}

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
   *
   * `url` may name several servers, as libpq writes it (`postgres://u@h1:p1,h2:p2/db`), with
   * `target_session_attrs` `any` (the default: the first that answers), `read-write` or
   * `primary`; pg reads neither, so the store tries the hosts in order, keeps the first that
   * will do, checks each new connection the same way, and looks again when the one kept gives
   * no connection: a worker follows a failover to the promoted replica
   * (`test/pg-failover.test.mjs`).
   */
  static async connect(url, { max = 16, onError = () => {}, connectionTimeoutMillis = 5000, ...poolOptions } = {}) {
    const targets = splitHosts(url);
    const connectionString = targets ? await findTarget(targets, connectionTimeoutMillis) : url;
    /** @type {Record<string, any>} */
    const options = { max, connectionTimeoutMillis, ...poolOptions };
    if (targets && targets.attrs !== 'any') options.Client = checkedClient(targets.attrs);
    const pool = new pg.Pool({ connectionString, ...options });
    pool.on('error', onError);
    try {
      await PostgresStore.migrate(pool, { onError });
    } catch (e) {
      await pool.end().catch(() => {});
      throw e;
    }
    const store = new PostgresStore(pool);
    if (targets && targets.hosts.length > 1) store.#targets = { ...targets, options, onError, current: connectionString };
    return store;
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

  /** The servers of a multi-host URL, what a session must be, and the one in use. */
  /** @type {Targets | null} */
  #targets = null;

  /**
   * One query. With a multi-host URL, when no connection to the server in use can be had (it
   * died, or came back as a replica), the URL's servers are tried in order and the pool is
   * replaced by one to the first that will do: nothing was sent, so the query is sent there.
   */
  async #query(config) {
    const targets = this.#targets;
    if (!targets) return this.pool.query(config);
    let client;
    try {
      client = await this.pool.connect();
    } catch {
      await this.#switch();
      client = await this.pool.connect();
    }
    client.on('error', targets.onError);
    let failure;
    try {
      return await client.query(config);
    } catch (e) {
      failure = e;
      throw e;
    } finally {
      client.removeListener('error', targets.onError);
      client.release(failure);
    }
  }

  async #switch() {
    const t = /** @type {Targets} */ (this.#targets);
    const found = await findTarget(t, t.options.connectionTimeoutMillis);
    if (found === t.current) return;
    const old = this.pool;
    this.pool = new pg.Pool({ connectionString: found, ...t.options });
    this.pool.on('error', t.onError);
    t.current = found;
    old.end().catch(() => {});
  }

  async #rows(name, text, values) {
    return (await this.#query({ name: `oncely_${name}`, text, values })).rows;
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
    const r = await this.#query({ name: 'oncely_insert', text: SQL.insert, values: rowValues(entry) });
    return r.rowCount === 1;
  }

  async update(expectedVersion, entry, { history = false } = {}) {
    const [name, text] = history ? ['oncely_update_kept', SQL.updateKept] : ['oncely_update', SQL.update];
    const r = await this.#query({ name, text, values: [...rowValues(entry), entry.scope, entry.key, expectedVersion] });
    return r.rowCount === 1;
  }

  async delete(scope, key, expectedVersion) {
    const r = await this.#query({ name: 'oncely_delete', text: SQL.delete, values: [scope, key, expectedVersion] });
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

// Schema migrations, kept the way the Rust host's sqlx keeps them so that hosts in any language
// can open the same ledger in any order: the same SQL files (migrations/, copied verbatim
// into gen/migrations.js), and the same bookkeeping table, of sqlx's layout (version = the file
// name's numeric prefix, description, success = true, checksum = SHA-384 of the file, execution
// time in ns). That table is oncely's own, never the `_sqlx_migrations` an application's own sqlx
// migrations use (two migrators sharing one table each refuse the other's rows):
// `oncely._sqlx_migrations` on PostgreSQL (in the `oncely` schema, created first) and
// `_oncely_migrations` on SQLite. A recorded migration is skipped (its checksum must match); a
// missing one is applied and recorded in one transaction. As with sqlx, a partially applied
// (dirty) migration or an applied migration this package does not know stops the open.

import { postgres as PG_MIGRATIONS, sqlite as SQLITE_MIGRATIONS } from '../../gen/migrations.js';
import { MigrationError, sameBytes, sha384 } from './sql.js';

/** The SQLite bookkeeping table (the Rust host's `SqliteStore::MIGRATIONS_TABLE`). */
export const SQLITE_MIGRATIONS_TABLE = '_oncely_migrations';
/** The PostgreSQL schema of the ledger and of its bookkeeping table. */
export const POSTGRES_SCHEMA = 'oncely';
/** The PostgreSQL bookkeeping table (the Rust host's `PostgresStore::MIGRATIONS_TABLE`). */
export const POSTGRES_MIGRATIONS_TABLE = `${POSTGRES_SCHEMA}._sqlx_migrations`;

/** sqlx's bookkeeping table, SQLite flavour (sqlx-sqlite `ensure_migrations_table`). */
export const SQLX_TABLE_SQLITE = `
CREATE TABLE IF NOT EXISTS ${SQLITE_MIGRATIONS_TABLE} (
    version BIGINT PRIMARY KEY,
    description TEXT NOT NULL,
    installed_on TIMESTAMP NOT NULL DEFAULT CURRENT_TIMESTAMP,
    success BOOLEAN NOT NULL,
    checksum BLOB NOT NULL,
    execution_time BIGINT NOT NULL
);`;

/** sqlx's bookkeeping table, PostgreSQL flavour (sqlx-postgres `ensure_migrations_table`). */
export const SQLX_TABLE_POSTGRES = `
CREATE TABLE IF NOT EXISTS ${POSTGRES_MIGRATIONS_TABLE} (
    version BIGINT PRIMARY KEY,
    description TEXT NOT NULL,
    installed_on TIMESTAMPTZ NOT NULL DEFAULT now(),
    success BOOLEAN NOT NULL,
    checksum BYTEA NOT NULL,
    execution_time BIGINT NOT NULL
);`;

async function resolve(list) {
  return Promise.all(
    list.map(async (m) => ({ version: Number(m.version), description: m.description, sql: m.sql, checksum: await sha384(m.sql) })),
  );
}

/** The SQLite migrations with their checksums. */
export const sqliteMigrations = () => resolve(SQLITE_MIGRATIONS);
/** The PostgreSQL migrations with their checksums. */
export const postgresMigrations = () => resolve(PG_MIGRATIONS);

const bytes = (v) => (v instanceof Uint8Array ? v : new Uint8Array(v));

/** Check recorded migrations against ours (sqlx's `validate_applied_migrations` and checksums). */
function plan(table, dirty, applied, migrations) {
  if (dirty.length > 0) {
    throw new MigrationError(`migration ${dirty[0].version} was partially applied (success = false in ${table}); repair the schema and that row by hand`);
  }
  const known = new Map(migrations.map((m) => [m.version, m]));
  const done = new Set();
  for (const a of applied) {
    const v = Number(a.version);
    const m = known.get(v);
    if (!m) throw new MigrationError(`migration ${v} was previously applied but is missing in the resolved migrations (a newer oncely wrote this ledger?)`);
    if (!sameBytes(bytes(a.checksum), m.checksum)) throw new MigrationError(`migration ${v} was previously applied but has been modified`);
    done.add(v);
  }
  return migrations.filter((m) => !done.has(m.version));
}

const nowNs = () => (globalThis.performance ? globalThis.performance.now() : Date.now()) * 1e6;

/**
 * Migrate a SQLite database through a synchronous adapter:
 * `{exec(sql), all(sql, params), run(sql, params), transaction(fn)}` where `transaction` runs
 * `fn` atomically holding the write lock (better-sqlite3: BEGIN IMMEDIATE; a Durable Object:
 * transactionSync).
 */
export function migrateSqlite(db, migrations) {
  db.transaction(() => {
    db.exec(SQLX_TABLE_SQLITE);
    const T = SQLITE_MIGRATIONS_TABLE;
    const dirty = db.all(`SELECT version FROM ${T} WHERE success = false ORDER BY version LIMIT 1`, []);
    const applied = db.all(`SELECT version, checksum FROM ${T} ORDER BY version`, []);
    for (const m of plan(T, dirty, applied, migrations)) {
      const t0 = nowNs();
      db.exec(m.sql);
      const ns = Math.max(0, Math.round(nowNs() - t0));
      db.run(`INSERT INTO ${T} ( version, description, success, checksum, execution_time ) VALUES ( ?, ?, TRUE, ?, ? )`, [
        m.version,
        m.description,
        m.checksum,
        ns,
      ]);
    }
  });
}

/** sqlx's advisory lock id for a PostgreSQL database: 0x3d32ad9e × CRC-32 (IEEE) of its name. */
export function advisoryLockId(databaseName) {
  return 0x3d32ad9en * BigInt(crc32(new TextEncoder().encode(databaseName)));
}

let crcTable = null;
function crc32(data) {
  if (crcTable === null) {
    crcTable = new Uint32Array(256);
    for (let n = 0; n < 256; n++) {
      let c = n;
      for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
      crcTable[n] = c >>> 0;
    }
  }
  let crc = 0xffffffff;
  for (const b of data) crc = crcTable[(crc ^ b) & 0xff] ^ (crc >>> 8);
  return (crc ^ 0xffffffff) >>> 0;
}

/**
 * Migrate a PostgreSQL database on one `pg` client, holding sqlx's advisory lock (so concurrent
 * openers in any language wait for each other). As sqlx's migrator does under that lock: create
 * the schema, then the bookkeeping table in it.
 */
export async function migratePostgres(client, migrations) {
  const { rows } = await client.query('SELECT current_database() AS name');
  const lock = advisoryLockId(rows[0].name).toString();
  await client.query('SELECT pg_advisory_lock($1)', [lock]);
  try {
    const T = POSTGRES_MIGRATIONS_TABLE;
    await client.query(`CREATE SCHEMA IF NOT EXISTS ${POSTGRES_SCHEMA};`);
    await client.query(SQLX_TABLE_POSTGRES);
    const dirty = (await client.query(`SELECT version FROM ${T} WHERE success = false ORDER BY version LIMIT 1`)).rows;
    const applied = (await client.query(`SELECT version, checksum FROM ${T} ORDER BY version`)).rows;
    for (const m of plan(T, dirty, applied, migrations)) {
      await client.query('BEGIN');
      try {
        const t0 = nowNs();
        await client.query(m.sql);
        const ns = Math.max(0, Math.round(nowNs() - t0));
        await client.query(`INSERT INTO ${T} ( version, description, success, checksum, execution_time ) VALUES ( $1, $2, TRUE, $3, $4 )`, [
          m.version,
          m.description,
          Buffer.from(m.checksum),
          ns,
        ]);
        await client.query('COMMIT');
      } catch (e) {
        await client.query('ROLLBACK').catch(() => {});
        throw e;
      }
    }
  } finally {
    await client.query('SELECT pg_advisory_unlock($1)', [lock]);
  }
}

// What the SQL stores share with the Rust host (host/src/store/mod.rs): the column list, the
// statements (built from the table names and a placeholder style), and the one place entries,
// history records and rows are converted. The SQL text is ours alone; every value is bound,
// never spliced.

import { WIT } from '../gen/wit.js';

/**
 * The column list shared by both dialects, in bind order: the entry's fields in WIT order (the
 * table's own order is its migrations'; every statement names its columns).
 */
export const COLUMNS = [
  'scope', 'key', 'tool', 'run_id', 'step_id', 'fingerprint', 'args_canonical', 'state', 'version', 'attempt',
  'owner', 'created_at', 'updated_at', 'lease_until', 'in_doubt_since', 'next_reconcile_at', 'reconcile_attempts', 'result_json',
  'reason', 'resolved_by', 'settlement', 'reconcile_kind', 'reconcile_tool', 'lease_ms', 'max_call_ms', 'reconcile_after_ms', 'escalate_after_ms',
  'retention_ms', 'due_at',
];

// The entry states, from the WIT mirrors: the stored names are the WIT enum's.
const STATES = new Set(/** @type {{cases: ReadonlyArray<string>}} */ (WIT['ledger.entry-state']).cases);

/** The columns of a history record, in the Rust host's order (`Store::history`). */
export const HISTORY_COLUMNS = ['version', 'at', 'state', 'attempt', 'owner', 'reconcile_attempts', 'reason', 'resolved_by', 'settlement'];

/** The row's columns a history record holds, in `HISTORY_COLUMNS` order (`at` is the row's `updated_at`), with their SQL types. */
const RECORD_OF = [
  ['version', 'BIGINT'], ['updated_at', 'BIGINT'], ['state', 'TEXT'], ['attempt', 'BIGINT'], ['owner', 'TEXT'],
  ['reconcile_attempts', 'BIGINT'], ['reason', 'TEXT'], ['resolved_by', 'TEXT'], ['settlement', 'TEXT'],
];

/**
 * Every statement of a store over the entry table `table` and its history view `history`. `p(n)`
 * renders the n-th (1-based) placeholder: `?n` for SQLite, `$n` for PostgreSQL (which also picks
 * the JSON dialect). Each write keeps the entry's history in its own statement (wit/ledger.wit,
 * step 3): the insert's `history` is an array of the written row's record, and `updateKept` (an
 * update the core marked, `row-write.history`) appends it; the record's values are the write's
 * own parameters, numbered as in `COLUMNS`.
 */
export function statements(table, history, p) {
  const cols = COLUMNS.join(', ');
  const n = COLUMNS.length;
  const values = COLUMNS.map((_, i) => p(i + 1)).join(', ');
  const sets = COLUMNS.map((c, i) => `${c} = ${p(i + 1)}`).join(', ');
  const where = `WHERE scope = ${p(n + 1)} AND key = ${p(n + 2)} AND version = ${p(n + 3)}`;
  const at = (c) => p(COLUMNS.indexOf(c) + 1);
  const postgres = p(1).startsWith('$');
  const record = RECORD_OF.map(([c, t]) => (postgres ? `CAST(${at(c)} AS ${t})` : at(c))).join(', ');
  const first = postgres ? `jsonb_build_array(jsonb_build_array(${record}))` : `json_array(json_array(${record}))`;
  const append = postgres
    ? `COALESCE(history, '[]'::jsonb) || ${first}`
    : `json_insert(COALESCE(history, '[]'), '$[#]', json_array(${record}))`;
  return {
    get: `SELECT ${cols} FROM ${table} WHERE scope = ${p(1)} AND key = ${p(2)}`,
    // What a replay compares of a row (machine.js): four columns, not the row.
    recorded: `SELECT state, fingerprint, tool, result_json FROM ${table} WHERE scope = ${p(1)} AND key = ${p(2)}`,
    insert: `INSERT INTO ${table} (${cols}, history) VALUES (${values}, ${first}) ON CONFLICT (scope, key) DO NOTHING`,
    update: `UPDATE ${table} SET ${sets} ${where}`,
    updateKept: `UPDATE ${table} SET ${sets}, history = ${append} ${where}`,
    delete: `DELETE FROM ${table} WHERE scope = ${p(1)} AND key = ${p(2)} AND version = ${p(3)}`,
    list:
      `SELECT ${cols} FROM ${table} WHERE scope = ${p(1)} AND (CAST(${p(2)} AS TEXT) IS NULL OR state = ${p(2)}) ` +
      `AND (CAST(${p(3)} AS TEXT) IS NULL OR tool = ${p(3)}) ORDER BY updated_at DESC, key LIMIT ${p(4)}`,
    due:
      `SELECT ${cols} FROM ${table} WHERE due_at <= ${p(2)} AND (CAST(${p(1)} AS TEXT) IS NULL OR scope = ${p(1)}) ` +
      `ORDER BY due_at, scope, key LIMIT ${p(3)}`,
    history: `SELECT ${HISTORY_COLUMNS.join(', ')} FROM ${history} WHERE scope = ${p(1)} AND key = ${p(2)} ORDER BY version`,
  };
}

/**
 * The statements with numbered `?N` placeholders rewritten to anonymous `?` for drivers that bind
 * by position only (better-sqlite3, Durable Object SQL): each statement becomes
 * `{sql, order}`, and `bind(stmt, args)` lays `args` (1-based as numbered) out in that order.
 */
export function anonymous(stmts) {
  const out = {};
  for (const [name, sql] of Object.entries(stmts)) {
    const order = [];
    out[name] = { sql: sql.replace(/\?(\d+)/g, (_, d) => (order.push(Number(d) - 1), '?')), order };
  }
  return out;
}

export function bind(stmt, args) {
  return stmt.order.map((i) => args[i]);
}

/** A JS entry as column values, in COLUMNS order. */
export function rowValues(e) {
  let kind;
  let tool = null;
  if (typeof e.reconcile === 'string') kind = e.reconcile;
  else {
    kind = 'lookup';
    tool = e.reconcile.lookup;
  }
  return [
    e.scope, e.key, e.tool, e.runId, e.stepId, e.fingerprint, e.argsCanonical, e.state, int(e.version), e.attempt,
    e.owner, int(e.createdAt), int(e.updatedAt), int(e.leaseUntil), intOpt(e.inDoubtSince), intOpt(e.nextReconcileAt), e.reconcileAttempts, e.resultJson,
    e.reason, e.resolvedBy, e.settlement, kind, tool, int(e.leaseMs), int(e.maxCallMs), int(e.reconcileAfterMs), int(e.escalateAfterMs), int(e.retentionMs),
    intOpt(e.dueAt),
  ];
}

const I64_MAX = (1n << 63n) - 1n;

/**
 * A time or counter as a column value: a number while it is exact, else a BigInt saturated at
 * the largest BIGINT (as the Rust host saturates; such values come only from extreme policies).
 */
export function int(v) {
  if (Number.isSafeInteger(v)) return v;
  const b = BigInt(v);
  return b > I64_MAX ? I64_MAX : b;
}

function intOpt(v) {
  return v === null || v === undefined ? null : int(v);
}

function corrupt(r, what) {
  return new Error(r.scope === undefined ? `corrupt history record (${what} of version ${r.version})` : `corrupt ledger row (${what} of (${r.scope}, ${r.key}))`);
}

function num(r, col) {
  const v = r[col];
  const x = typeof v === 'bigint' ? Number(v) : typeof v === 'string' ? Number(v) : v;
  if (typeof x !== 'number' || !Number.isFinite(x) || x < 0 || !Number.isInteger(x)) throw corrupt(r, col);
  return x;
}

function numOpt(r, col) {
  return r[col] === null || r[col] === undefined ? null : num(r, col);
}

/** A row (an object keyed by column name) as a JS entry. */
/** What a replay compares of a row (`recorded` of a store), from its four columns. */
export function recordedFromRow(r) {
  return { state: r.state, fingerprint: r.fingerprint, tool: r.tool, resultJson: r.result_json ?? undefined };
}

export function entryFromRow(r) {
  let reconcile;
  switch (r.reconcile_kind) {
    case 'none':
    case 'provider-idempotent':
    case 'manual':
      reconcile = r.reconcile_kind;
      break;
    case 'lookup':
      if (typeof r.reconcile_tool !== 'string') throw corrupt(r, 'reconcile_kind');
      reconcile = { lookup: r.reconcile_tool };
      break;
    default:
      throw corrupt(r, 'reconcile_kind');
  }
  if (!STATES.has(r.state)) throw corrupt(r, 'state');
  return {
    scope: r.scope,
    key: r.key,
    tool: r.tool,
    runId: r.run_id,
    stepId: r.step_id,
    fingerprint: r.fingerprint,
    argsCanonical: r.args_canonical,
    state: r.state,
    version: num(r, 'version'),
    attempt: num(r, 'attempt'),
    owner: r.owner,
    createdAt: num(r, 'created_at'),
    updatedAt: num(r, 'updated_at'),
    leaseUntil: num(r, 'lease_until'),
    inDoubtSince: numOpt(r, 'in_doubt_since'),
    nextReconcileAt: numOpt(r, 'next_reconcile_at'),
    reconcileAttempts: num(r, 'reconcile_attempts'),
    resultJson: r.result_json ?? null,
    reason: r.reason ?? null,
    resolvedBy: r.resolved_by ?? null,
    settlement: r.settlement ?? null,
    reconcile,
    leaseMs: num(r, 'lease_ms'),
    maxCallMs: num(r, 'max_call_ms'),
    reconcileAfterMs: num(r, 'reconcile_after_ms'),
    escalateAfterMs: num(r, 'escalate_after_ms'),
    retentionMs: num(r, 'retention_ms'),
    dueAt: numOpt(r, 'due_at'),
  };
}

/** A history row (an object keyed by column name) as a JS history record. */
export function historyFromRow(r) {
  if (!STATES.has(r.state)) throw corrupt(r, 'state');
  return {
    version: num(r, 'version'),
    at: num(r, 'at'),
    state: r.state,
    attempt: num(r, 'attempt'),
    owner: r.owner,
    reconcileAttempts: num(r, 'reconcile_attempts'),
    reason: r.reason ?? null,
    resolvedBy: r.resolved_by ?? null,
    settlement: r.settlement ?? null,
  };
}

/** Bytes of SHA-384 of `text`'s UTF-8 bytes (sqlx's migration checksum), with WebCrypto. */
export async function sha384(text) {
  const bytes = new TextEncoder().encode(text);
  return new Uint8Array(await globalThis.crypto.subtle.digest('SHA-384', bytes));
}

export function sameBytes(a, b) {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}

export class MigrationError extends Error {
  constructor(message) {
    super(`migrating the ledger schema: ${message}`);
    this.name = 'MigrationError';
  }
}

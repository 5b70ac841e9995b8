// Redis / Valkey store over `ioredis`: one ledger shared by many workers on a Redis server, a
// primary with replicas, or a Redis Cluster, in the Rust host's layout byte for byte
// (host/src/store/redis.rs), so a Rust worker and a JS worker share one ledger:
//
//   <prefix>:{<scope>}:e:<key>   hash: `row` (the row as JSON, the SQL columns' names, in the
//                                Rust host's field order), `v` version, `s` state, `t` tool,
//                                `f` fingerprint, `r` result (absent: none)
//   <prefix>:{<scope>}:h:<key>   list: the history, one JSON record per write that keeps one
//   <prefix>:{<scope>}:due|upd|esc|doubt|ask, :n, :ap:<tool>   the indexes and counts
//   <prefix>:scopes              set: every scope that has had an entry
//
// Every key of a scope carries the scope as its hash tag, so one write touches one cluster slot.
// A claim, a compare-and-set update and a delete are each one of the Lua scripts of
// migrations/redis/ (generated into gen/migrations.js; EVALSHA, loaded again on NOSCRIPT), the
// same text, so the same SHA1, as the Rust host's. The store decides nothing: it writes the row
// the core names, if the version is the one expected.

import { readFileSync } from 'node:fs';
import { Cluster, Redis } from 'ioredis';
import { redis as LUA } from '../../gen/migrations.js';
import { ConfigurationError, StorageError } from '../errors.js';
import { entryFromRow, historyFromRow, HISTORY_COLUMNS, int, recordedFromRow, rowValues, COLUMNS } from './sql.js';

/** The row's JSON object: the Rust host's `Row` fields, in its order (serde writes them so). */
const ROW_ORDER = [
  'scope', 'key', 'tool', 'fingerprint', 'args_canonical', 'state', 'version', 'attempt', 'owner', 'created_at', 'updated_at',
  'lease_until', 'in_doubt_since', 'next_reconcile_at', 'reconcile_attempts', 'result_json', 'reason', 'resolved_by',
  'reconcile_kind', 'reconcile_tool', 'lease_ms', 'max_call_ms', 'reconcile_after_ms', 'escalate_after_ms', 'retention_ms',
  'due_at', 'settlement', 'run_id', 'step_id',
];

/** How many members a scan of a sorted set reads per round trip (as the Rust host). */
const BATCH = 200;

// ioredis defines a method per script (EVALSHA, then EVAL on NOSCRIPT).
const SCRIPTS = {
  oncelyInsert: { numberOfKeys: 9, lua: LUA.index + LUA.insert },
  oncelyUpdate: { numberOfKeys: 9, lua: LUA.index + LUA.update },
  oncelyDelete: { numberOfKeys: 9, lua: LUA.delete },
};

/**
 * A claim was written on the primary but fewer replicas than `?wait_replicas=` acknowledged it
 * within `?wait_timeout_ms=`: the claim is held, the tool is not called, and the entry is settled
 * as any interrupted claim is.
 */
export class NotReplicatedError extends StorageError {
  constructor(wanted, acked, timeoutMs) {
    super(`the claim reached ${acked} of ${wanted} replica(s) within ${timeoutMs} ms (WAIT)`);
    this.name = 'NotReplicatedError';
    this.wanted = wanted;
    this.acked = acked;
    this.timeoutMs = timeoutMs;
  }
}

export class RedisStore {
  /**
   * Connect to `url`: `redis://[user:password@]host:port[/db]` or `rediss://…` (TLS), with
   * oncely's own query options `prefix` (first part of every key, default `oncely`),
   * `wait_replicas` (replicas every claim waits for, `WAIT`; default 0), `wait_timeout_ms`
   * (default 1000) and `tls_ca` (a PEM file of the authorities to trust). A server in cluster
   * mode is used as a cluster (its other nodes found from it). The server's persistence is read
   * (`CONFIG GET appendonly`, `appendfsync`) and given to `onDurability` (default: a process
   * warning when a claim would not survive the server's crash: `process.emitWarning`).
   * `onError` hears the client's connection errors (default: ignored; ioredis reconnects, and
   * commands meanwhile fail or wait as its options say); other options go to ioredis.
   */
  static async connect(url, { onDurability = warnUnlessDurable, onError = () => {}, ...clientOptions } = {}) {
    const { node, options } = parseUrl(url);
    const probe = new Redis({ ...node, ...clientOptions, lazyConnect: true, retryStrategy: () => null, maxRetriesPerRequest: 0 });
    probe.on('error', () => {});
    let cluster;
    let durability;
    try {
      await probe.connect();
      cluster = /^cluster_enabled:1\s*$/m.test(await probe.info('cluster'));
      const config = async (name) => {
        try {
          const v = await probe.config('GET', name);
          return Array.isArray(v) && typeof v[1] === 'string' ? v[1] : null;
        } catch {
          return null; // CONFIG is not allowed on this server
        }
      };
      durability = new Durability(await config('appendonly'), await config('appendfsync'), options.waitReplicas, cluster);
    } catch (e) {
      throw new StorageError(`connecting to ${redact(url)}: ${e?.message ?? e}`, e);
    } finally {
      probe.disconnect();
    }
    let client;
    if (cluster) {
      const { host, port, db: _db, ...redisOptions } = node;
      client = new Cluster([{ host, port }], { redisOptions: { ...redisOptions, ...clientOptions }, scripts: SCRIPTS, lazyConnect: true });
    } else {
      client = new Redis({ ...node, ...clientOptions, scripts: SCRIPTS, lazyConnect: true });
    }
    client.on('error', onError);
    try {
      await client.connect();
    } catch (e) {
      client.disconnect();
      throw new StorageError(`connecting to ${redact(url)}: ${e?.message ?? e}`, e);
    }
    onDurability(durability, redact(url));
    return new RedisStore(client, { ...options, durability });
  }

  /**
   * A store over a connected ioredis client (`Redis` or `Cluster`) made with this store's
   * scripts (`RedisStore.scripts`); `connect` makes one.
   * @param {any} client
   * @param {{prefix?: string, waitReplicas?: number, waitTimeoutMs?: number, durability?: Durability | null}} [options]
   */
  constructor(client, { prefix = 'oncely', waitReplicas = 0, waitTimeoutMs = 1000, durability = null } = {}) {
    this.client = client;
    this.prefix = prefix;
    this.waitReplicas = waitReplicas;
    this.waitTimeoutMs = waitTimeoutMs;
    /** The server's persistence as read at open, and what the ledger guarantees under it. */
    this.durability = durability;
    this.cluster = client instanceof Cluster;
    /** Scopes this store has added to the scope set. */
    this.registered = new Set();
  }

  /** The write scripts, as ioredis's `scripts` option takes them. */
  static get scripts() {
    return SCRIPTS;
  }

  #scopeKey(scope, what) {
    return `${this.prefix}:{${tag(scope)}}:${what}`;
  }

  #entryKey(scope, key) {
    return this.#scopeKey(scope, `e:${key}`);
  }

  /** The `KEYS` of a write of `(scope, key)` of `tool`. */
  #writeKeys(scope, key, tool) {
    return [
      this.#entryKey(scope, key),
      this.#scopeKey(scope, `h:${key}`),
      ...['due', 'upd', 'esc', 'doubt', 'ask', 'n'].map((w) => this.#scopeKey(scope, w)),
      this.#scopeKey(scope, `ap:${tool}`),
    ];
  }

  /** Every scope that has had an entry (sorted), or just `scope`. */
  async #scopes(scope) {
    if (scope !== null && scope !== undefined) return [scope];
    return (await this.client.smembers(`${this.prefix}:scopes`)).sort(byBytes);
  }

  async #register(scope) {
    if (this.registered.has(scope)) return;
    await this.client.sadd(`${this.prefix}:scopes`, scope);
    this.registered.add(scope);
  }

  /** After a claim: `WAIT` for the configured replicas (on a cluster, every primary: the least). */
  async #replicated() {
    const wanted = this.waitReplicas;
    if (wanted === 0) return;
    const nodes = this.cluster ? this.client.nodes('master') : [this.client];
    const acked = Math.min(...(await Promise.all(nodes.map((n) => n.wait(wanted, this.waitTimeoutMs)))));
    if (acked < wanted) throw new NotReplicatedError(wanted, acked, this.waitTimeoutMs);
  }

  async get(scope, key) {
    const json = await this.client.hget(this.#entryKey(scope, key), 'row');
    return json === null ? null : decode(json);
  }

  /** What a replay compares of the row of `(scope, key)` (four fields of its hash), or null. */
  async recorded(scope, key) {
    const [state, fingerprint, tool, result] = await this.client.hmget(this.#entryKey(scope, key), 's', 'f', 't', 'r');
    if (state === null || fingerprint === null || tool === null) return null;
    return recordedFromRow({ state, fingerprint, tool, result_json: result });
  }

  async insert(entry) {
    await this.#register(entry.scope);
    const done = await this.client.oncelyInsert(...this.#writeKeys(entry.scope, entry.key, entry.tool), ...writeArgs(entry));
    if (done === 1) await this.#replicated();
    return done === 1;
  }

  async update(expectedVersion, entry, { history = false } = {}) {
    const keys = this.#writeKeys(entry.scope, entry.key, entry.tool);
    const done = await this.client.oncelyUpdate(...keys, ...writeArgs(entry), String(int(expectedVersion)), history ? '1' : '0');
    // A claim: an update that leaves a (new) claim held.
    if (done === 1 && history && entry.state === 'pending') await this.#replicated();
    return done === 1;
  }

  async delete(scope, key, expectedVersion) {
    // The tool names the approvals' set; it never changes for a key.
    const tool = await this.client.hget(this.#entryKey(scope, key), 't');
    if (tool === null) return false;
    return (await this.client.oncelyDelete(...this.#writeKeys(scope, key, tool), String(int(expectedVersion)), key)) === 1;
  }

  /** Entries of a scope (every scope: `null`), newest first, then by scope and key. */
  async list(scope, filter) {
    const want = filter.limit;
    const all = [];
    if (!(want > 0)) return all;
    for (const s of await this.#scopes(scope)) {
      // Newest first, every tie of the last one kept (the order then takes key ascending).
      const upd = this.#scopeKey(s, 'upd');
      const kept = [];
      scan: for (let offset = 0; ; offset += BATCH) {
        const batch = pairs(await this.client.zrevrangebyscore(upd, '+inf', '-inf', 'WITHSCORES', 'LIMIT', offset, BATCH));
        for (const e of await this.#rows(s, batch.map(([k]) => k))) {
          if (kept.length >= want && kept.at(-1).updatedAt !== e.updatedAt) break scan;
          if ((filter.state == null || filter.state === e.state) && (filter.tool == null || filter.tool === e.tool)) kept.push(e);
        }
        if (batch.length < BATCH) break;
      }
      all.push(...kept);
    }
    all.sort((a, b) => b.updatedAt - a.updatedAt || byBytes(a.scope, b.scope) || byBytes(a.key, b.key));
    return all.slice(0, want);
  }

  /** Entries due by `now` (of a scope, or every scope: `null`), by due time, scope and key. */
  async due(scope, now, limit) {
    const order = [];
    for (const s of await this.#scopes(scope)) {
      const due = this.#scopeKey(s, 'due');
      let got = 0;
      for (let offset = 0; got < limit; offset += BATCH) {
        const batch = pairs(await this.client.zrangebyscore(due, '-inf', String(int(now)), 'WITHSCORES', 'LIMIT', offset, BATCH));
        for (const [k, at] of batch.slice(0, limit - got)) order.push([at, s, k]);
        got += batch.length;
        if (batch.length < BATCH) break;
      }
    }
    order.sort((a, b) => a[0] - b[0] || byBytes(a[1], b[1]) || byBytes(a[2], b[2]));
    return this.#rowsOf(order.slice(0, limit));
  }

  /** The history of `(scope, key)`, oldest first (appended by the insert and each update the core marked). */
  async history(scope, key) {
    const records = await this.client.lrange(this.#scopeKey(scope, `h:${key}`), 0, -1);
    return records.map((r) => {
      let values;
      try {
        values = JSON.parse(r);
      } catch (e) {
        throw new Error(`corrupt history record of (${scope}, ${key}): ${e.message}`, { cause: e });
      }
      if (!Array.isArray(values) || values.length !== HISTORY_COLUMNS.length) throw new Error(`corrupt history record of (${scope}, ${key})`);
      return historyFromRow(Object.fromEntries(HISTORY_COLUMNS.map((c, i) => [c, values[i]])));
    });
  }

  /** Close the connection(s) (once; a second call does nothing). */
  async close() {
    if (this.client.status === 'end') return;
    try {
      await this.client.quit();
    } catch {
      this.client.disconnect();
    }
  }

  /** The rows of `keys` of `scope` (those still present), in order: one pipeline. */
  async #rows(scope, keys) {
    if (keys.length === 0) return [];
    const pipe = this.client.pipeline();
    for (const k of keys) pipe.hget(this.#entryKey(scope, k), 'row');
    return (await exec(pipe)).filter((j) => j !== null).map(decode);
  }

  /** The rows of `[score, scope, key]`s, in order: one pipeline per scope (a cluster's must share a slot). */
  async #rowsOf(order) {
    const byScope = new Map();
    for (const [i, [, s, k]] of order.entries()) {
      if (!byScope.has(s)) byScope.set(s, []);
      byScope.get(s).push([i, k]);
    }
    const json = new Array(order.length).fill(null);
    await Promise.all(
      [...byScope].map(async ([s, at]) => {
        const pipe = this.client.pipeline();
        for (const [, k] of at) pipe.hget(this.#entryKey(s, k), 'row');
        for (const [j, v] of (await exec(pipe)).entries()) json[at[j][0]] = v;
      }),
    );
    return json.filter((j) => j !== null).map(decode);
  }
}

/** The server's persistence as read at open, and what it means for the ledger. */
export class Durability {
  constructor(appendonly, appendfsync, waitReplicas, cluster) {
    /** `CONFIG GET appendonly` (null: CONFIG is not allowed on this server). */
    this.appendonly = appendonly;
    /** `CONFIG GET appendfsync`. */
    this.appendfsync = appendfsync;
    /** Replicas every claim waits for (`?wait_replicas=`). */
    this.waitReplicas = waitReplicas;
    /** Whether the server is part of a cluster. */
    this.cluster = cluster;
  }

  /**
   * Whether a claim that returned survives the server's crash (an fsync'd append-only file) or the
   * loss of the primary (`wait_replicas`).
   */
  get claimsSurviveACrash() {
    return (this.appendonly === 'yes' && this.appendfsync === 'always') || this.waitReplicas > 0;
  }

  /** What the ledger guarantees under this configuration, in a sentence (the Rust host's). */
  get guarantee() {
    let disk;
    if (this.appendonly === 'yes' && this.appendfsync === 'always') {
      disk = 'every write is in the append-only file and fsync\'d before it returns: a claim survives a crash or power loss of the server';
    } else if (this.appendonly === 'yes' && this.appendfsync === 'everysec') {
      disk =
        'writes reach the append-only file at once but are fsync\'d once a second: a crash of the server process loses nothing, ' +
        'a power loss or kernel crash may lose the last second of claims (an effect may then run twice)';
    } else if (this.appendonly === 'yes') {
      disk =
        `writes reach the append-only file, fsync'd when the OS decides (appendfsync ${this.appendfsync ?? '?'}): a crash of the server ` +
        'process loses nothing, a power loss may lose recent claims (an effect may then run twice)';
    } else if (this.appendonly === 'no') {
      disk =
        'no append-only file (appendonly no): a restart of the server loses every write since its last snapshot, claims included ' +
        '(an effect may then run twice); set appendonly yes';
    } else {
      disk = 'the server\'s persistence could not be read (CONFIG GET is not allowed): what a claim survives is what the server is configured for';
    }
    const replicas =
      this.waitReplicas > 0
        ? `; every claim waits for ${this.waitReplicas} replica(s) to acknowledge it (WAIT), so it survives the loss of the primary once a replica that acknowledged it is promoted`
        : '; claims do not wait for replicas: a failover to a replica that had not received a claim loses it';
    return disk + replicas;
  }
}

function warnUnlessDurable(durability, where) {
  if (!durability.claimsSurviveACrash) {
    globalThis.process?.emitWarning?.(`redis ledger at ${where}: ${durability.guarantee}`, { type: 'OncelyDurabilityWarning' });
  }
}

/** The write scripts' `ARGV` (migrations/redis/index.lua says what each is). */
function writeArgs(e) {
  const v = rowValues(e);
  const col = Object.fromEntries(COLUMNS.map((c, i) => [c, v[i]]));
  const record = [col.version, col.updated_at, col.state, col.attempt, col.owner, col.reconcile_attempts, col.reason, col.resolved_by, col.settlement];
  return [
    String(col.version),
    col.state,
    col.tool,
    `{${ROW_ORDER.map((c) => `${JSON.stringify(c)}:${json(col[c])}`).join(',')}}`,
    `[${record.map(json).join(',')}]`,
    col.due_at === null ? '' : String(col.due_at),
    String(col.updated_at),
    String(col.in_doubt_since ?? col.updated_at),
    col.key,
    col.fingerprint,
    col.result_json === null ? '0' : '1',
    col.result_json ?? '',
  ];
}

/** A column value as serde_json writes it (a BigInt, past 2^53, as its digits). */
function json(v) {
  return typeof v === 'bigint' ? v.toString() : JSON.stringify(v ?? null);
}

function decode(text) {
  let row;
  try {
    row = JSON.parse(text);
  } catch (e) {
    throw new Error(`corrupt ledger row: its JSON: ${e.message}`, { cause: e });
  }
  if (row === null || typeof row !== 'object') throw new Error('corrupt ledger row: not a JSON object');
  return entryFromRow(row);
}

/** `[member, score, member, score, …]` (WITHSCORES) as `[member, score]` pairs. */
function pairs(flat) {
  const out = [];
  for (let i = 0; i < flat.length; i += 2) out.push([flat[i], Number(flat[i + 1])]);
  return out;
}

/** A pipeline's replies, failing with the first error. */
async function exec(pipe) {
  return (await pipe.exec()).map(([err, v]) => {
    if (err) throw err;
    return v;
  });
}

/** The order of the Rust host (and SQL): by UTF-8 bytes. */
function byBytes(a, b) {
  return a === b ? 0 : Buffer.compare(Buffer.from(a, 'utf8'), Buffer.from(b, 'utf8'));
}

/** The hash tag of `scope`: itself with `%` and `}` percent-encoded; `%` for the empty scope. */
export function tag(scope) {
  return scope === '' ? '%' : scope.replaceAll('%', '%25').replaceAll('}', '%7D');
}

/** The URL without a password, for messages. */
export function redact(url) {
  const s = url.indexOf('://');
  const at = url.lastIndexOf('@');
  return s >= 0 && at > s ? `${url.slice(0, s)}://…@${url.slice(at + 1)}` : url;
}

/**
 * The connection options of a `redis://` or `rediss://` URL for ioredis, and oncely's own options
 * from its query (`prefix`, `wait_replicas`, `wait_timeout_ms`, `tls_ca`); any other query
 * parameter is refused, but `protocol` (the Rust client's; ioredis speaks RESP2).
 */
export function parseUrl(url) {
  const bad = (why) => new ConfigurationError(`redis store: ${redact(String(url))}: ${why}`);
  let u;
  try {
    u = new URL(url);
  } catch {
    throw bad('not a URL');
  }
  if (u.protocol !== 'redis:' && u.protocol !== 'rediss:') throw bad('expected a redis:// or rediss:// URL');
  if (!u.hostname) throw bad('no host');
  /** @type {{prefix: string, waitReplicas: number, waitTimeoutMs: number, tlsCa: string | null}} */
  const options = { prefix: 'oncely', waitReplicas: 0, waitTimeoutMs: 1000, tlsCa: null };
  const count = (k, v) => {
    if (!/^\d+$/.test(v) || !Number.isSafeInteger(Number(v))) throw bad(`${k}=${v} is not valid`);
    return Number(v);
  };
  for (const [k, v] of u.searchParams) {
    if (k === 'prefix') {
      if (v === '' || /[{}]/.test(v)) throw bad(`${k}=${v} is not valid`);
      options.prefix = v;
    } else if (k === 'wait_replicas') options.waitReplicas = count(k, v);
    else if (k === 'wait_timeout_ms') options.waitTimeoutMs = count(k, v);
    else if (k === 'tls_ca' && v !== '') options.tlsCa = v;
    else if (k !== 'protocol') throw bad(`unknown option ${k}`);
  }
  const node = { host: u.hostname.replace(/^\[|\]$/g, ''), port: u.port ? Number(u.port) : 6379 };
  if (u.username) node.username = decodeURIComponent(u.username);
  if (u.password) node.password = decodeURIComponent(u.password);
  if (u.pathname.length > 1) {
    const db = u.pathname.slice(1);
    if (!/^\d+$/.test(db)) throw bad(`database ${db} is not a number`);
    node.db = Number(db);
  }
  if (u.protocol === 'rediss:') node.tls = options.tlsCa === null ? {} : { ca: readFileSync(options.tlsCa) };
  else if (options.tlsCa !== null) throw bad('tls_ca needs a rediss:// URL');
  return { node, options };
}

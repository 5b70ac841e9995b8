// DynamoDB store over `@aws-sdk/client-dynamodb`: a ledger in one DynamoDB table, shared by many
// workers in Python and JavaScript alike (bindings/python/src/oncely/store/dynamodb.py reads and
// writes the same items; docs/operations.md, "A ledger in DynamoDB", is the layout):
//
// - one item per entry, its partition key the `scope` and its sort key the `key` (strings);
// - its attributes the SQL schema's column names with the same values: text as `S`, numbers as
//   `N`; a NULL column is absent;
// - `history`: a list of the entry's history records, each the SQL stores' `[version, at, state,
//   attempt, owner, reconcile_attempts, reason, resolved_by, settlement]` (a null one `NULL`);
// - `due_shard`: "0" to "7", the sum of the key's UTF-8 bytes modulo 8 (the partition of the
//   all-scopes due index);
// - two sparse keys-only indexes: `scope_due` (scope, due_at) and `due` (due_shard, due_at).
//
// A claim is one PutItem conditioned on `attribute_not_exists(scope)`; every later write one
// UpdateItem (SET the columns, REMOVE the null ones, list_append the history record when the
// core marks the write) or DeleteItem conditioned on `version = :expected`. Every read of an
// item is strongly consistent; `due` takes keys from an (eventually consistent) index and reads
// the items again with BatchGetItem (ConsistentRead), keeping those still due.

import {
  BatchGetItemCommand,
  CreateTableCommand,
  DeleteItemCommand,
  DescribeTableCommand,
  DynamoDBClient,
  GetItemCommand,
  PutItemCommand,
  QueryCommand,
  UpdateItemCommand,
} from '@aws-sdk/client-dynamodb';
import { COLUMNS, entryFromRow, historyFromRow, int, recordedFromRow, rowValues } from './sql.js';

/** Partitions of the all-scopes due index (`due_shard`). */
export const SHARDS = 8;
const DUE_BY_SCOPE = 'scope_due';
const DUE_ALL = 'due';
const TABLE_NAME = /^[A-Za-z0-9_.-]{3,255}$/;
const NUMBERS = new Set([
  'version', 'attempt', 'created_at', 'updated_at', 'lease_until', 'in_doubt_since', 'next_reconcile_at',
  'reconcile_attempts', 'lease_ms', 'max_call_ms', 'reconcile_after_ms', 'escalate_after_ms', 'retention_ms', 'due_at',
]);
// Every column by a placeholder name (`key`, `state`, `owner`… are DynamoDB reserved words).
const NAMES = Object.fromEntries(COLUMNS.map((c, i) => [`#c${i}`, c]));
const NAME = Object.fromEntries(COLUMNS.map((c, i) => [c, `#c${i}`]));
const PROJECTION = Object.keys(NAMES).join(', ');
const RECORDED = ['state', 'fingerprint', 'tool', 'result_json'];
const RECORD_OF = ['version', 'updated_at', 'state', 'attempt', 'owner', 'reconcile_attempts', 'reason', 'resolved_by', 'settlement'];

/** The item's partition of the all-scopes due index: the sum of `key`'s UTF-8 bytes modulo SHARDS. */
export function dueShard(key) {
  let sum = 0;
  for (const b of new TextEncoder().encode(key)) sum += b;
  return String(sum % SHARDS);
}

/** `{table, region, endpoint}` of `dynamodb://TABLE?region=…&endpoint=…`; a TypeError saying what is wrong otherwise. */
export function parseLocation(location) {
  let u;
  try {
    u = new URL(location);
  } catch {
    throw new TypeError(`not a DynamoDB location (dynamodb://TABLE?region=…): ${JSON.stringify(location)}`);
  }
  if (u.protocol !== 'dynamodb:') throw new TypeError(`not a DynamoDB location (dynamodb://TABLE?region=…): ${JSON.stringify(location)}`);
  const table = u.host;
  if (!TABLE_NAME.test(table) || !['', '/'].includes(u.pathname) || u.username || u.password) {
    throw new TypeError(`the DynamoDB table in ${JSON.stringify(location)} must be 3 to 255 of A-Z a-z 0-9 _ . - (dynamodb://TABLE?region=…)`);
  }
  /** @type {{table: string, region?: string, endpoint?: string}} */
  const out = { table };
  const seen = new Set();
  for (const [k, v] of u.searchParams) {
    if (k !== 'region' && k !== 'endpoint') throw new TypeError(`unknown option ${k} in ${JSON.stringify(location)}: only region, endpoint`);
    if (seen.has(k) || !v) throw new TypeError(`option ${k} in ${JSON.stringify(location)} must be given once, not empty`);
    seen.add(k);
    if (k === 'region') out.region = v;
    else out.endpoint = v;
  }
  return out;
}

/** A column value as an attribute value (null: none). */
function attr(c, v) {
  if (v === null || v === undefined) return null;
  return NUMBERS.has(c) ? { N: String(v) } : { S: v };
}


function value(av, what) {
  if (av === undefined || av.NULL) return null;
  if (av.S !== undefined) return av.S;
  if (av.N !== undefined) {
    const n = Number(av.N);
    if (!Number.isInteger(n)) throw new Error(`corrupt ledger row (${what} is not an integer)`);
    return Number.isSafeInteger(n) ? n : BigInt(av.N);
  }
  throw new Error(`corrupt ledger row (${what} has an unexpected type)`);
}

/** An item as a row keyed by column name. */
function row(item) {
  const r = {};
  for (const c of COLUMNS) {
    const av = item[c];
    const v = value(av, c);
    if (v !== null && NUMBERS.has(c) !== (av.N !== undefined)) throw new Error(`corrupt ledger row (${c} of (${item.scope?.S}, ${item.key?.S}))`);
    r[c] = v;
  }
  return r;
}

const conditionFailed = (e) => e?.name === 'ConditionalCheckFailedException';
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

export class DynamoDBStore {
  /**
   * Open the ledger at `dynamodb://TABLE?region=…&endpoint=…` (`region` and `endpoint` optional:
   * the SDK's defaults apply; credentials always come from the SDK's chain), creating the table
   * (on-demand billing) when it does not exist and checking it when it does. Other options go to
   * `DynamoDBClient`.
   */
  static async open(location, clientOptions = {}) {
    const { table, region, endpoint } = parseLocation(location);
    const client = new DynamoDBClient({ ...(region ? { region } : {}), ...(endpoint ? { endpoint } : {}), ...clientOptions });
    const store = new DynamoDBStore(client, table);
    try {
      await store.#ensureTable();
    } catch (e) {
      client.destroy();
      throw new Error(`opening the DynamoDB table ${table}: ${e?.message ?? e}`, { cause: e });
    }
    return store;
  }

  /** A store over a `DynamoDBClient` and a table that is a ledger's. */
  constructor(client, table) {
    this.client = client;
    this.table = table;
  }

  async #ensureTable() {
    let desc;
    try {
      desc = (await this.client.send(new DescribeTableCommand({ TableName: this.table }))).Table;
    } catch (e) {
      if (e?.name !== 'ResourceNotFoundException') throw e;
      await this.#createTable();
      desc = (await this.client.send(new DescribeTableCommand({ TableName: this.table }))).Table;
    }
    const deadline = Date.now() + 120_000;
    while (!active(desc)) {
      if (Date.now() > deadline) throw new Error(`the DynamoDB table ${this.table} did not become active`);
      await sleep(200);
      desc = (await this.client.send(new DescribeTableCommand({ TableName: this.table }))).Table;
    }
    const wrong = layoutDiffers(desc);
    if (wrong) throw new Error(`the DynamoDB table ${this.table} is not a ledger's: ${wrong}`);
  }

  async #createTable() {
    /** @type {(IndexName: string, hash: string) => import('@aws-sdk/client-dynamodb').GlobalSecondaryIndex} */
    const index = (IndexName, hash) => ({
      IndexName,
      KeySchema: [{ AttributeName: hash, KeyType: 'HASH' }, { AttributeName: 'due_at', KeyType: 'RANGE' }],
      Projection: { ProjectionType: 'KEYS_ONLY' },
    });
    try {
      await this.client.send(
        new CreateTableCommand({
          TableName: this.table,
          BillingMode: 'PAY_PER_REQUEST',
          AttributeDefinitions: [
            { AttributeName: 'scope', AttributeType: 'S' },
            { AttributeName: 'key', AttributeType: 'S' },
            { AttributeName: 'due_shard', AttributeType: 'S' },
            { AttributeName: 'due_at', AttributeType: 'N' },
          ],
          KeySchema: [{ AttributeName: 'scope', KeyType: 'HASH' }, { AttributeName: 'key', KeyType: 'RANGE' }],
          GlobalSecondaryIndexes: [index(DUE_BY_SCOPE, 'scope'), index(DUE_ALL, 'due_shard')],
        }),
      );
    } catch (e) {
      if (e?.name !== 'ResourceInUseException') throw e; // another worker is creating it
    }
  }

  #key(scope, key) {
    return { scope: { S: scope }, key: { S: key } };
  }

  async #read(scope, key, names) {
    const r = await this.client.send(
      new GetItemCommand({
        TableName: this.table,
        Key: this.#key(scope, key),
        ConsistentRead: true,
        ProjectionExpression: Object.keys(names).join(', '),
        ExpressionAttributeNames: names,
      }),
    );
    return r.Item && Object.keys(r.Item).length ? r.Item : null;
  }

  /** Send a conditional write; false when its condition was refused. */
  async #write(command) {
    try {
      await this.client.send(command);
      return true;
    } catch (e) {
      if (conditionFailed(e)) return false;
      throw e;
    }
  }

  async get(scope, key) {
    const item = await this.#read(scope, key, NAMES);
    return item ? entryFromRow(row(item)) : null;
  }

  /** What a replay compares of the row of `(scope, key)` (its four columns), or null. */
  async recorded(scope, key) {
    const item = await this.#read(scope, key, Object.fromEntries(RECORDED.map((c) => [NAME[c], c])));
    if (!item) return null;
    return recordedFromRow(Object.fromEntries(RECORDED.map((c) => [c, value(item[c], c)])));
  }

  async insert(entry) {
    const values = rowValues(entry);
    /** @type {Record<string, import('@aws-sdk/client-dynamodb').AttributeValue>} */
    const item = {};
    COLUMNS.forEach((c, i) => {
      const av = attr(c, values[i]);
      if (av) item[c] = av;
    });
    item.history = { L: [record(values)] };
    item.due_shard = { S: dueShard(entry.key) };
    return this.#write(
      new PutItemCommand({
        TableName: this.table,
        Item: item,
        ConditionExpression: 'attribute_not_exists(#s)',
        ExpressionAttributeNames: { '#s': 'scope' },
      }),
    );
  }

  async update(expectedVersion, entry, { history = false } = {}) {
    const values = rowValues(entry);
    const names = { '#v': 'version' };
    const vals = { ':expected': { N: String(int(expectedVersion)) } };
    const sets = [];
    const removes = [];
    COLUMNS.forEach((c, i) => {
      if (c === 'scope' || c === 'key') return;
      const n = NAME[c];
      names[n] = c;
      const av = attr(c, values[i]);
      if (av === null) removes.push(n);
      else {
        vals[`:${n.slice(1)}`] = av;
        sets.push(`${n} = :${n.slice(1)}`);
      }
    });
    if (history) {
      names['#h'] = 'history';
      vals[':rec'] = { L: [record(values)] };
      vals[':none'] = { L: [] };
      sets.push('#h = list_append(if_not_exists(#h, :none), :rec)');
    }
    let expr = `SET ${sets.join(', ')}`;
    if (removes.length) expr += ` REMOVE ${removes.join(', ')}`;
    return this.#write(
      new UpdateItemCommand({
        TableName: this.table,
        Key: this.#key(entry.scope, entry.key),
        UpdateExpression: expr,
        ConditionExpression: '#v = :expected',
        ExpressionAttributeNames: names,
        ExpressionAttributeValues: vals,
      }),
    );
  }

  async delete(scope, key, expectedVersion) {
    return this.#write(
      new DeleteItemCommand({
        TableName: this.table,
        Key: this.#key(scope, key),
        ConditionExpression: '#v = :expected',
        ExpressionAttributeNames: { '#v': 'version' },
        ExpressionAttributeValues: { ':expected': { N: String(int(expectedVersion)) } },
      }),
    );
  }

  /** Entries of one scope, newest first: the scope's partition read whole (strongly consistent) and sorted here. */
  async list(scope, filter) {
    const vals = { ':scope': { S: scope } };
    const cond = [];
    if (filter.state != null) {
      cond.push(`${NAME.state} = :state`);
      vals[':state'] = { S: filter.state };
    }
    if (filter.tool != null) {
      cond.push(`${NAME.tool} = :tool`);
      vals[':tool'] = { S: filter.tool };
    }
    const items = await this.#query({
      KeyConditionExpression: '#s = :scope',
      ConsistentRead: true,
      ProjectionExpression: PROJECTION,
      ExpressionAttributeNames: { ...NAMES, '#s': 'scope' },
      ExpressionAttributeValues: vals,
      ...(cond.length && { FilterExpression: cond.join(' AND ') }),
    });
    const entries = items.map((i) => entryFromRow(row(i)));
    entries.sort((a, b) => b.updatedAt - a.updatedAt || cmp(a.key, b.key));
    return entries.slice(0, filter.limit);
  }

  /** Entries whose `due_at` is at or before `now`, earliest first: keys from an index, the items read again strongly consistently. */
  async due(scope, now, limit) {
    if (limit <= 0) return [];
    const parts = scope != null ? [[DUE_BY_SCOPE, 'scope', scope]] : Array.from({ length: SHARDS }, (_, s) => [DUE_ALL, 'due_shard', String(s)]);
    const keys = new Map();
    for (const [IndexName, attrName, v] of parts) {
      const items = await this.#query(
        {
          IndexName,
          KeyConditionExpression: '#p = :p AND #d <= :now',
          ExpressionAttributeNames: { '#p': attrName, '#d': 'due_at' },
          ExpressionAttributeValues: { ':p': { S: v }, ':now': { N: String(int(now)) } },
          Limit: limit,
        },
        limit,
      );
      for (const i of items) keys.set(JSON.stringify([i.scope.S, i.key.S]), [i.scope.S, i.key.S]);
    }
    const entries = (await this.#getMany([...keys.values()])).filter((e) => e.dueAt !== null && e.dueAt <= now);
    entries.sort((a, b) => (a.dueAt ?? 0) - (b.dueAt ?? 0) || cmp(a.scope, b.scope) || cmp(a.key, b.key));
    return entries.slice(0, limit);
  }

  /** The history of `(scope, key)`, oldest first (appended by the insert and each update the core marked). */
  async history(scope, key) {
    const item = await this.#read(scope, key, { '#h': 'history' });
    if (!item?.history) return [];
    if (!item.history.L) throw new Error(`corrupt ledger row (history of (${scope}, ${key}))`);
    const out = item.history.L.map((r) => {
      if (!r.L || r.L.length !== RECORD_OF.length) throw new Error(`corrupt ledger row (history of (${scope}, ${key}))`);
      const cols = ['version', 'at', 'state', 'attempt', 'owner', 'reconcile_attempts', 'reason', 'resolved_by', 'settlement'];
      return historyFromRow(Object.fromEntries(cols.map((c, i) => [c, value(r.L[i], c)])));
    });
    return out.sort((a, b) => a.version - b.version);
  }

  async close() {
    this.client.destroy();
  }

  async #query(input, atMost = Infinity) {
    const items = [];
    let start;
    for (;;) {
      const r = await this.client.send(new QueryCommand({ TableName: this.table, ...input, ...(start && { ExclusiveStartKey: start }) }));
      items.push(...(r.Items ?? []));
      start = r.LastEvaluatedKey;
      if (!start || items.length >= atMost) return items;
    }
  }

  /** The items of `keys` that exist, read strongly consistently (BatchGetItem, 100 keys a call; unprocessed keys asked again). */
  async #getMany(keys) {
    const out = [];
    for (let i = 0; i < keys.length; i += 100) {
      let want = keys.slice(i, i + 100).map(([s, k]) => this.#key(s, k));
      let pause = 10;
      while (want.length) {
        const r = await this.client.send(
          new BatchGetItemCommand({
            RequestItems: { [this.table]: { Keys: want, ConsistentRead: true, ProjectionExpression: PROJECTION, ExpressionAttributeNames: NAMES } },
          }),
        );
        for (const item of r.Responses?.[this.table] ?? []) out.push(entryFromRow(row(item)));
        want = r.UnprocessedKeys?.[this.table]?.Keys ?? [];
        if (want.length) {
          await sleep(pause);
          pause = Math.min(pause * 2, 1000);
        }
      }
    }
    return out;
  }
}

/** A history record as an attribute value: the SQL stores' record, from the row's values. */
function record(values) {
  return { L: RECORD_OF.map((c) => attr(c, values[COLUMNS.indexOf(c)]) ?? { NULL: true }) };
}

function cmp(a, b) {
  return a < b ? -1 : a > b ? 1 : 0;
}

function active(desc) {
  return desc?.TableStatus === 'ACTIVE' && (desc.GlobalSecondaryIndexes ?? []).every((g) => (g.IndexStatus ?? 'ACTIVE') === 'ACTIVE');
}

const keys = (schema) => (schema ?? []).map((k) => `${k.AttributeName}:${k.KeyType}`).join(',');

/** What differs from a ledger's table, if anything. */
function layoutDiffers(desc) {
  if (keys(desc.KeySchema) !== 'scope:HASH,key:RANGE') return 'its key must be scope (partition) and key (sort)';
  const indexes = Object.fromEntries((desc.GlobalSecondaryIndexes ?? []).map((g) => [g.IndexName, keys(g.KeySchema)]));
  for (const [name, hash] of [[DUE_BY_SCOPE, 'scope'], [DUE_ALL, 'due_shard']]) {
    if (indexes[name] !== `${hash}:HASH,due_at:RANGE`) return `it needs the index ${name} (${hash}, due_at)`;
  }
  return null;
}

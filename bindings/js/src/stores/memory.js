// An in-memory store: for tests, simulations and single-process tools. Same contract as the SQL
// stores: insert-if-absent, compare-and-swap on version, every query by scope. Nothing survives
// the process.

const id = (scope, key) => `${scope}\u0000${key}`;
const copy = (e) => ({ ...e, reconcile: typeof e.reconcile === 'string' ? e.reconcile : { ...e.reconcile } });

// Each entry's history (wit/ledger.wit, step 3): the written row's record (the same fields as
// the SQL migrations' history view, the time being its `updatedAt`) is appended when the core
// says the write keeps one (`{history: true}`: an insert, or an update that changes what the
// history tracks); every write has a version of its own (compare-and-swap), so a record per
// version, as the SQL stores keep; a delete removes the key's history.
const COPIED = ['state', 'attempt', 'owner', 'reconcileAttempts', 'reason', 'resolvedBy', 'settlement'];
const record = (e) => ({ version: e.version, at: e.updatedAt, ...Object.fromEntries(COPIED.map((f) => [f, e[f] ?? null])) });

export class MemoryStore {
  #rows = new Map();
  /** id → Map(version → history record). */
  #history = new Map();

  async get(scope, key) {
    const e = this.#rows.get(id(scope, key));
    return e ? copy(e) : null;
  }

  async insert(entry, { history = true } = {}) {
    const k = id(entry.scope, entry.key);
    if (this.#rows.has(k)) return false;
    this.#rows.set(k, copy(entry));
    if (history) this.#keep(k, entry);
    return true;
  }

  async update(expectedVersion, entry, { history = false } = {}) {
    const k = id(entry.scope, entry.key);
    const cur = this.#rows.get(k);
    if (!cur || cur.version !== expectedVersion) return false;
    this.#rows.set(k, copy(entry));
    if (history) this.#keep(k, entry);
    return true;
  }

  async delete(scope, key, expectedVersion) {
    const k = id(scope, key);
    const cur = this.#rows.get(k);
    if (!cur || cur.version !== expectedVersion) return false;
    this.#rows.delete(k);
    this.#history.delete(k);
    return true;
  }

  async list(scope, filter) {
    return [...this.#rows.values()]
      .filter((e) => e.scope === scope && (filter.state == null || e.state === filter.state) && (filter.tool == null || e.tool === filter.tool))
      .sort((a, b) => b.updatedAt - a.updatedAt || cmp(a.key, b.key))
      .slice(0, filter.limit)
      .map(copy);
  }

  async due(scope, now, limit) {
    return [...this.#rows.values()]
      .filter((e) => e.dueAt !== null && e.dueAt !== undefined && e.dueAt <= now && (scope == null || e.scope === scope))
      .sort((a, b) => a.dueAt - b.dueAt || cmp(a.scope, b.scope) || cmp(a.key, b.key))
      .slice(0, limit)
      .map(copy);
  }

  /** The history of `(scope, key)`, oldest first (empty when there is no entry). */
  async history(scope, key) {
    const h = this.#history.get(id(scope, key));
    return h ? [...h.values()].sort((a, b) => a.version - b.version).map((r) => ({ ...r })) : [];
  }

  async close() {}

  #keep(k, entry) {
    let h = this.#history.get(k);
    if (!h) this.#history.set(k, (h = new Map()));
    if (!h.has(entry.version)) h.set(entry.version, record(entry));
  }
}

function cmp(a, b) {
  return a < b ? -1 : a > b ? 1 : 0;
}

// An in-memory store: for tests, simulations and single-process tools. Same contract as the SQL
// stores: insert-if-absent, compare-and-swap on version, every query by scope. Nothing survives
// the process.

const id = (scope, key) => `${scope}\u0000${key}`;
const copy = (e) => ({ ...e, reconcile: typeof e.reconcile === 'string' ? e.reconcile : { ...e.reconcile } });

export class MemoryStore {
  #rows = new Map();

  async get(scope, key) {
    const e = this.#rows.get(id(scope, key));
    return e ? copy(e) : null;
  }

  async insert(entry) {
    const k = id(entry.scope, entry.key);
    if (this.#rows.has(k)) return false;
    this.#rows.set(k, copy(entry));
    return true;
  }

  async update(expectedVersion, entry) {
    const k = id(entry.scope, entry.key);
    const cur = this.#rows.get(k);
    if (!cur || cur.version !== expectedVersion) return false;
    this.#rows.set(k, copy(entry));
    return true;
  }

  async delete(scope, key, expectedVersion) {
    const k = id(scope, key);
    const cur = this.#rows.get(k);
    if (!cur || cur.version !== expectedVersion) return false;
    this.#rows.delete(k);
    return true;
  }

  async list(scope, filter = {}) {
    const limit = filter.limit ? filter.limit : 100;
    return [...this.#rows.values()]
      .filter((e) => e.scope === scope && (filter.state == null || e.state === filter.state) && (filter.tool == null || e.tool === filter.tool))
      .sort((a, b) => b.updatedAt - a.updatedAt || cmp(a.key, b.key))
      .slice(0, limit)
      .map(copy);
  }

  async due(scope, now, limit) {
    return [...this.#rows.values()]
      .filter((e) => e.dueAt !== null && e.dueAt !== undefined && e.dueAt <= now && (scope == null || e.scope === scope))
      .sort((a, b) => a.dueAt - b.dueAt || cmp(a.scope, b.scope) || cmp(a.key, b.key))
      .slice(0, limit)
      .map(copy);
  }

  async close() {}
}

function cmp(a, b) {
  return a < b ? -1 : a > b ? 1 : 0;
}

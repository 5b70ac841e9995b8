// `oncely/sqlite`: the SQLite store (needs better-sqlite3 12.x).
export { SqliteStore } from './stores/sqlite.js';

// `oncely/postgres`: the PostgreSQL store (needs pg 8.x).
export { PostgresStore } from './stores/postgres.js';

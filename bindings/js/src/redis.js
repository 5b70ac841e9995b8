// `oncely/redis`: the Redis / Valkey store (needs ioredis 6.x; Node only).
export { Durability, NotReplicatedError, RedisStore } from './stores/redis.js';

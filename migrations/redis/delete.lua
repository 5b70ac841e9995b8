-- The Redis store's delete script, the same text in every host (Rust, Python, JavaScript);
-- KEYS, ARGV and the key layout: host/src/store/redis.rs and docs/operations.md.
local v = redis.call('HGET', KEYS[1], 'v')
if v ~= ARGV[1] then return 0 end
local old = redis.call('HGET', KEYS[1], 's')
redis.call('DEL', KEYS[1], KEYS[2])
for i = 3, 7 do redis.call('ZREM', KEYS[i], ARGV[2]) end
redis.call('ZREM', KEYS[9], ARGV[2])
redis.call('HINCRBY', KEYS[8], old, -1)
return 1

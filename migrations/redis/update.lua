-- The Redis store's update script, the same text in every host (Rust, Python, JavaScript);
-- KEYS, ARGV and the key layout: host/src/store/redis.rs and docs/operations.md.
local v = redis.call('HGET', KEYS[1], 'v')
if v ~= ARGV[13] then return 0 end
local old = redis.call('HGET', KEYS[1], 's')
row()
if ARGV[14] == '1' then
  redis.call('RPUSH', KEYS[2], ARGV[5])
  approved(ARGV[9])
end
if old ~= ARGV[2] then
  redis.call('HINCRBY', KEYS[8], old, -1)
  redis.call('HINCRBY', KEYS[8], ARGV[2], 1)
end
index(ARGV[9])
return 1

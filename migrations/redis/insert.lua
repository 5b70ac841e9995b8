-- The Redis store's insert script, the same text in every host (Rust, Python, JavaScript);
-- KEYS, ARGV and the key layout: host/src/store/redis.rs and docs/operations.md.
if redis.call('EXISTS', KEYS[1]) == 1 then return 0 end
row()
redis.call('DEL', KEYS[2])
redis.call('RPUSH', KEYS[2], ARGV[5])
redis.call('HINCRBY', KEYS[8], ARGV[2], 1)
index(ARGV[9])
approved(ARGV[9])
return 1

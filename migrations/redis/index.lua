-- The Redis store's index script, the same text in every host (Rust, Python, JavaScript);
-- KEYS, ARGV and the key layout: host/src/store/redis.rs and docs/operations.md.
local function index(member)
  local state = ARGV[2]
  if ARGV[6] ~= '' then redis.call('ZADD', KEYS[3], ARGV[6], member) else redis.call('ZREM', KEYS[3], member) end
  redis.call('ZADD', KEYS[4], ARGV[7], member)
  if state == 'escalated' then redis.call('ZADD', KEYS[5], ARGV[8], member) else redis.call('ZREM', KEYS[5], member) end
  if state == 'in-doubt' then redis.call('ZADD', KEYS[6], ARGV[8], member) else redis.call('ZREM', KEYS[6], member) end
  if state == 'awaiting-approval' then redis.call('ZADD', KEYS[7], ARGV[7], member) else redis.call('ZREM', KEYS[7], member) end
end
local function row()
  redis.call('HSET', KEYS[1], 'v', ARGV[1], 's', ARGV[2], 't', ARGV[3], 'row', ARGV[4], 'f', ARGV[10])
  if ARGV[11] == '1' then redis.call('HSET', KEYS[1], 'r', ARGV[12]) else redis.call('HDEL', KEYS[1], 'r') end
end
local function approved(member)
  if ARGV[2] == 'approved' then
    local at = tonumber(ARGV[7])
    local was = redis.call('ZSCORE', KEYS[9], member)
    if not was or tonumber(was) < at then redis.call('ZADD', KEYS[9], at, member) end
  end
end

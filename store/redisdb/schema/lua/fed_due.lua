-- Moves the delivery jobs that are due from the retries back onto the
-- stream, at most ARGV[2] of them, in one step (any process may run it at
-- any time: a job moved is no longer in the retries).
-- KEYS[1]: STREAM fed:deliveries; KEYS[2]: ZSET fed:retries
-- ARGV[1]: now (unix ms); ARGV[2]: the most to move; ARGV[3]: the job field.
-- Returns how many it moved.
local due = redis.call('ZRANGEBYSCORE', KEYS[2], '-inf', ARGV[1], 'LIMIT', 0, tonumber(ARGV[2]))
for _, job in ipairs(due) do
  redis.call('XADD', KEYS[1], '*', ARGV[3], job)
  redis.call('ZREM', KEYS[2], job)
end
return #due

-- Counts one failed login and, from the threshold on, sets the time before
-- which the next attempt must wait: first_wait, doubling with each further
-- failure, at most max_wait.
-- KEYS[1]: HASH login:fail:<name>[:<address>] (one account's key)
-- ARGV[1]: now (ms); ARGV[2]: threshold (failures); ARGV[3]: first_wait (ms);
-- ARGV[4]: max_wait (ms); ARGV[5]: window (ms): the count is forgotten this
-- long after the last failure (or after the wait, if that is longer).
-- Returns the failures counted so far.
local n = redis.call('HINCRBY', KEYS[1], 'n', 1)
local threshold = tonumber(ARGV[2])
local ttl = tonumber(ARGV[5])
if n >= threshold then
  local wait = math.min(tonumber(ARGV[3]) * 2 ^ math.min(n - threshold, 30), tonumber(ARGV[4]))
  redis.call('HSET', KEYS[1], 'until', string.format('%d', tonumber(ARGV[1]) + wait))
  ttl = math.max(ttl, wait)
end
redis.call('PEXPIRE', KEYS[1], string.format('%d', ttl))
return n

-- Marks one user's conversation read up to a message, never back and never
-- past its newest message, and takes it out of the user's unread ones when
-- nothing after the mark is left.
-- KEYS[1]: ZSET conv:<uid>:<other>; KEYS[2]: ZSET conv:<uid>:read;
-- KEYS[3]: SET conv:<uid>:unread (one user's keys)
-- ARGV[1]: other's uid; ARGV[2]: the id read up to.
-- Returns the new mark, or 0 when the mark did not move.
local newest = redis.call('ZREVRANGE', KEYS[1], 0, 0)[1]
if not newest then return 0 end
local upto = ARGV[2]
if tonumber(newest) < tonumber(upto) then upto = newest end
local mark = redis.call('ZSCORE', KEYS[2], ARGV[1])
if mark and tonumber(mark) >= tonumber(upto) then return 0 end
redis.call('ZADD', KEYS[2], upto, ARGV[1])
if redis.call('ZCOUNT', KEYS[1], '(' .. upto, '+inf') == 0 then
  redis.call('SREM', KEYS[3], ARGV[1])
end
return upto

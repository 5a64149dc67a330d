-- Marks one user's conversation unread: its read mark goes back to just
-- below its newest message, so that one message is unread, and the
-- conversation is among the user's unread ones. A conversation with
-- something unread already is left as it is.
-- KEYS[1]: ZSET conv:<uid>:<other>; KEYS[2]: ZSET conv:<uid>:read;
-- KEYS[3]: SET conv:<uid>:unread (one user's keys)
-- ARGV[1]: other's uid.
-- Returns how many messages are unread now (0: the conversation has none).
local newest = redis.call('ZREVRANGE', KEYS[1], 0, 1)
if not newest[1] then return 0 end
local mark = redis.call('ZSCORE', KEYS[2], ARGV[1]) or '0'
local unread = redis.call('ZCOUNT', KEYS[1], '(' .. mark, '+inf')
if unread > 0 then
  redis.call('SADD', KEYS[3], ARGV[1])
  return unread
end
redis.call('ZADD', KEYS[2], newest[2] or '0', ARGV[1])
redis.call('SADD', KEYS[3], ARGV[1])
return 1

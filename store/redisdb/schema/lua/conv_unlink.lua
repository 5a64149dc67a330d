#!lua flags=allow-oom
-- Takes a private message out of one side of its conversation (a delete, or
-- a write taken back): the conversation's place in the user's list follows
-- its newest message left, and it leaves the user's unread ones when no
-- unread message is left. It frees memory, so it runs even when Redis is
-- out of memory.
-- KEYS[1]: ZSET conv:<uid>:<other>; KEYS[2]: ZSET conv:<uid>;
-- KEYS[3]: ZSET conv:<uid>:read; KEYS[4]: SET conv:<uid>:unread (one user's keys)
-- ARGV[1]: the message's id; ARGV[2]: other's uid.
-- Returns 1 when the message was there, else 0.
if redis.call('ZREM', KEYS[1], ARGV[1]) == 0 then return 0 end
local newest = redis.call('ZREVRANGE', KEYS[1], 0, 0)[1]
if newest then redis.call('ZADD', KEYS[2], 'XX', newest, ARGV[2]) end
local mark = redis.call('ZSCORE', KEYS[3], ARGV[2]) or '0'
if redis.call('ZCOUNT', KEYS[1], '(' .. mark, '+inf') == 0 then
  redis.call('SREM', KEYS[4], ARGV[2])
end
return 1

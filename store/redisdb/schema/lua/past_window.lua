#!lua flags=no-writes
-- The oldest ids of a sorted set beyond its newest window, at most a batch
-- of them: what the archiver may move out of Redis. Nothing is read (or
-- sent) while the set is within its window.
-- KEYS[1]: ZSET (one user's F:<uid>:messageID, or global:timeline)
-- ARGV[1]: the window; ARGV[2]: the most ids to return.
local n = redis.call('ZCARD', KEYS[1]) - tonumber(ARGV[1])
if n <= 0 then return {} end
return redis.call('ZRANGE', KEYS[1], 0, math.min(n, tonumber(ARGV[2])) - 1)

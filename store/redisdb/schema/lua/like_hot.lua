-- Adds a like to a message while the message's hash is in Redis, and keeps
-- its likes_count. An archived message (its hash gone from Redis) has its
-- likes in the archive alone, where the caller writes them; a like racing a
-- delete leaves no likes set behind.
-- It also gives the like the version its archive entry carries: the
-- caller's (the time, from the clock of the process), or one more than the
-- newest the message's likes and unlikes were given (like_version) when
-- that is not older, so that the versions of one message's actions follow
-- the order Redis took them in, whatever the processes' clocks say
-- (likes.go).
-- KEYS[1]: HASH B:<mid>; KEYS[2]: ZSET likes:<mid> (one message's keys)
-- ARGV[1]: when (ms); ARGV[2]: the uid who likes it; ARGV[3]: the version.
-- Returns {-1, 0} when the message is deleted, {-2, 0} when its hash is not
-- in Redis, else {how many likes were added (0 or 1), the version}.
if redis.call('HGET', KEYS[1], 'deleted') == '1' then return {-1, 0} end
if redis.call('EXISTS', KEYS[1]) == 0 then return {-2, 0} end
local n = redis.call('ZADD', KEYS[2], 'NX', ARGV[1], ARGV[2])
local v = tonumber(ARGV[3])
local newest = tonumber(redis.call('HGET', KEYS[1], 'like_version') or '0')
if v <= newest then v = newest + 1 end
v = string.format('%d', v)
redis.call('HSET', KEYS[1], 'likes_count', redis.call('ZCARD', KEYS[2]), 'like_version', v)
return {n, v}

#!lua flags=allow-oom
-- Takes a like away from a message while the message's hash is in Redis,
-- and keeps its likes_count; it frees memory, so it runs even when Redis is
-- out of memory. An archived message (its hash gone from Redis) has its
-- likes in the archive alone, where the caller takes it away.
-- It gives the unlike its version as like_hot.lua does a like.
-- KEYS[1]: HASH B:<mid>; KEYS[2]: ZSET likes:<mid> (one message's keys)
-- ARGV[1]: the uid who stops liking it; ARGV[2]: the version.
-- Returns {-1, 0} when the message is deleted, {-2, 0} when its hash is not
-- in Redis, else {how many likes were taken away (0 or 1), the version}.
if redis.call('HGET', KEYS[1], 'deleted') == '1' then return {-1, 0} end
if redis.call('EXISTS', KEYS[1]) == 0 then return {-2, 0} end
local n = redis.call('ZREM', KEYS[2], ARGV[1])
local v = tonumber(ARGV[2])
local newest = tonumber(redis.call('HGET', KEYS[1], 'like_version') or '0')
if v <= newest then v = newest + 1 end
v = string.format('%d', v)
redis.call('HSET', KEYS[1], 'likes_count', redis.call('ZCARD', KEYS[2]), 'like_version', v)
return {n, v}

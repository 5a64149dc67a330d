-- Adds a like to a message while the message's hash is in Redis, and keeps
-- its likes_count. An archived message (its hash gone from Redis) has its
-- likes in the archive alone, where the caller writes them; a like racing a
-- delete leaves no likes set behind.
-- KEYS[1]: HASH B:<mid>; KEYS[2]: ZSET likes:<mid> (one message's keys)
-- ARGV[1]: when (ms); ARGV[2]: the uid who likes it.
-- Returns -1 when the message is deleted, -2 when its hash is not in Redis,
-- else how many likes were added (0 or 1).
if redis.call('HGET', KEYS[1], 'deleted') == '1' then return -1 end
if redis.call('EXISTS', KEYS[1]) == 0 then return -2 end
local n = redis.call('ZADD', KEYS[2], 'NX', ARGV[1], ARGV[2])
redis.call('HSET', KEYS[1], 'likes_count', redis.call('ZCARD', KEYS[2]))
return n

-- Adds a like to a message, or takes one away, while the message's hash is
-- in Redis, and keeps its likes_count. An archived message (its hash gone
-- from Redis) has its likes in the archive alone, where the caller writes
-- them; a like racing a delete leaves no likes set behind.
-- KEYS[1]: HASH B:<mid>; KEYS[2]: ZSET likes:<mid> (one message's keys)
-- ARGV[1]: when (ms); ARGV[2]: the uid; ARGV[3]: "1" to like, "0" to unlike.
-- Returns -1 when the message is deleted, -2 when its hash is not in Redis,
-- else how many likes were added or taken away (0 or 1).
if redis.call('HGET', KEYS[1], 'deleted') == '1' then return -1 end
if redis.call('EXISTS', KEYS[1]) == 0 then return -2 end
local n
if ARGV[3] == '1' then
  n = redis.call('ZADD', KEYS[2], 'NX', ARGV[1], ARGV[2])
else
  n = redis.call('ZREM', KEYS[2], ARGV[2])
end
redis.call('HSET', KEYS[1], 'likes_count', redis.call('ZCARD', KEYS[2]))
return n

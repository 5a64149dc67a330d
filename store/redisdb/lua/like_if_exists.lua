-- Adds a like to a message only while the message exists, so that a like
-- racing a delete leaves no likes set behind.
-- KEYS[1]: HASH B:<mid>; KEYS[2]: ZSET likes:<mid> (one message's keys)
-- ARGV[1]: when (ms); ARGV[2]: the uid who likes it; ARGV[3]: "1" when the
-- caller found the message in the archive (its hash may be gone from Redis).
-- Returns -1 when the message is gone, else how many likes were added (0 or 1).
-- A message in Redis keeps the count in its likes_count field.
if redis.call('HGET', KEYS[1], 'deleted') == '1' then return -1 end
local hot = redis.call('EXISTS', KEYS[1]) == 1
if not hot and ARGV[3] ~= '1' then return -1 end
local added = redis.call('ZADD', KEYS[2], 'NX', ARGV[1], ARGV[2])
if hot then
  redis.call('HSET', KEYS[1], 'likes_count', redis.call('ZCARD', KEYS[2]))
end
return added

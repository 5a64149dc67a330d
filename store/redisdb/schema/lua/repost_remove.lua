#!lua flags=allow-oom
-- Takes a deleted (or undone) repost out of its original's reposters, if it
-- is the one recorded for its reposter, and sets the original's
-- reposts_count. It frees memory, so it runs even when Redis is out of memory.
-- KEYS[1]: ZSET reposts:<orig mid>; KEYS[2]: HASH B:<orig mid> (one message's keys).
-- ARGV[1]: the reposter's uid; ARGV[2]: the repost's mid; ARGV[3]: the
-- counter's field (reposts_count).
-- Returns 1 when the repost was taken out.
local removed = 0
if redis.call('ZSCORE', KEYS[1], ARGV[1]) == ARGV[2] then
  removed = redis.call('ZREM', KEYS[1], ARGV[1])
end
if redis.call('EXISTS', KEYS[2]) == 1 then
  redis.call('HSET', KEYS[2], ARGV[3], redis.call('ZCARD', KEYS[1]))
end
return removed

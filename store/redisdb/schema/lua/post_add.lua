-- Adds a post to its author's F set and counts it in posts_count, once: the
-- same write sent again (a retry, the checker finishing it) counts nothing.
-- KEYS[1]: ZSET F:<uid>:messageID; KEYS[2]: HASH user:userid:<uid> (one user's keys)
-- ARGV[1]: the post's mid; ARGV[2]: the counter's field (posts_count).
-- Returns 1 when the post was added, 0 when F had it already.
if redis.call('ZADD', KEYS[1], ARGV[1], ARGV[1]) == 1 then
  redis.call('HINCRBY', KEYS[2], ARGV[2], 1)
  return 1
end
return 0

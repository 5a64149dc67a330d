#!lua flags=allow-oom
-- Takes a post that was never answered for out of its author's F set and
-- its count, once (post_add.lua undone). It frees memory, so it runs even
-- when Redis is out of memory.
-- KEYS[1]: ZSET F:<uid>:messageID; KEYS[2]: HASH user:userid:<uid> (one user's keys)
-- ARGV[1]: the post's mid; ARGV[2]: the counter's field (posts_count).
-- Returns 1 when the post was removed, 0 when F did not have it.
if redis.call('ZREM', KEYS[1], ARGV[1]) == 1 then
  redis.call('HINCRBY', KEYS[2], ARGV[2], -1)
  return 1
end
return 0

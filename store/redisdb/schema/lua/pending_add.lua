-- Marks a post's push job as in flight: home reads pull its author's F set
-- until pending_done takes the mark away. Marking a post twice counts once.
-- KEYS[1]: HASH fanout:pending of the author's shard (mid → author)
-- KEYS[2]: ZSET fanout:pushing of the same shard (author → pushes in flight)
-- ARGV[1]: the post's mid; ARGV[2]: its author.
if redis.call('HSETNX', KEYS[1], ARGV[1], ARGV[2]) == 1 then
  redis.call('ZINCRBY', KEYS[2], 1, ARGV[2])
end
return 0

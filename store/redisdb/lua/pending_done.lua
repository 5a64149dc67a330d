-- Takes away the in-flight marks of posts whose push jobs are done; an
-- author leaves fanout:pushing with its last one. A mark taken twice, or
-- never made, changes nothing.
-- KEYS[1]: HASH fanout:pending of one shard (mid → author)
-- KEYS[2]: ZSET fanout:pushing of the same shard (author → pushes in flight)
-- ARGV: mid, author, mid, author, …: the posts, all by authors of that shard.
for i = 1, #ARGV - 1, 2 do
  if redis.call('HDEL', KEYS[1], ARGV[i]) == 1 then
    if tonumber(redis.call('ZINCRBY', KEYS[2], -1, ARGV[i + 1])) <= 0 then
      redis.call('ZREM', KEYS[2], ARGV[i + 1])
    end
  end
end
return 0

-- Takes away the in-flight marks of posts whose push jobs are done; an
-- author leaves fanout:pushing with its last one. A mark taken twice, or
-- never made, changes nothing.
-- KEYS[1]: HASH fanout:pending of one shard (mid → author)
-- KEYS[2]: ZSET fanout:pushing of the same shard (author → pushes in flight)
-- ARGV: the mids, all of authors of that shard.
for _, mid in ipairs(ARGV) do
  local author = redis.call('HGET', KEYS[1], mid)
  if author then
    redis.call('HDEL', KEYS[1], mid)
    if tonumber(redis.call('ZINCRBY', KEYS[2], -1, author)) <= 0 then
      redis.call('ZREM', KEYS[2], author)
    end
  end
end
return 0

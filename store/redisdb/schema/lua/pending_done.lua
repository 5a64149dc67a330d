-- Takes away the in-flight marks of posts whose push jobs are done; an
-- author leaves fanout:pushing with its last one. A mark taken twice, or
-- never made, changes nothing.
-- KEYS[1]: HASH fanout:pending of one shard (mid → author)
-- KEYS[2]: ZSET fanout:pushing of the same shard (author → pushes in flight)
-- KEYS[3] (on a cluster): ZSET fanout:settled of the same shard (author →
-- when it left fanout:pushing, ms of this node's clock), kept ARGV[1] ms
-- ARGV[1]: how long fanout:settled keeps an author (ms; 0 without KEYS[3])
-- ARGV[2], ARGV[3], …: mid, author, mid, author, …: the posts, all by
-- authors of that shard.
local now
if #KEYS >= 3 then
  local t = redis.call('TIME')
  now = t[1] * 1000 + math.floor(t[2] / 1000)
  redis.call('ZREMRANGEBYSCORE', KEYS[3], '-inf', now - tonumber(ARGV[1]))
end
for i = 2, #ARGV - 1, 2 do
  if redis.call('HDEL', KEYS[1], ARGV[i]) == 1 then
    if tonumber(redis.call('ZINCRBY', KEYS[2], -1, ARGV[i + 1])) <= 0 then
      redis.call('ZREM', KEYS[2], ARGV[i + 1])
      if now then
        redis.call('ZADD', KEYS[3], now, ARGV[i + 1])
      end
    end
  end
end
return 0

-- Takes an author out of global:celebrities (one shard of it on a cluster,
-- where the shard's fanout:settled also records when).
-- KEYS[1]: SET global:celebrities of the author's shard
-- KEYS[2] (on a cluster): ZSET fanout:settled of the same shard (author →
-- when it stopped being pulled, ms of this node's clock), kept ARGV[2] ms
-- ARGV[1]: the author; ARGV[2]: how long fanout:settled keeps an author (ms)
if redis.call('SREM', KEYS[1], ARGV[1]) == 1 and #KEYS >= 2 then
  local t = redis.call('TIME')
  local now = t[1] * 1000 + math.floor(t[2] / 1000)
  redis.call('ZREMRANGEBYSCORE', KEYS[2], '-inf', now - tonumber(ARGV[2]))
  redis.call('ZADD', KEYS[2], now, ARGV[1])
end
return 0

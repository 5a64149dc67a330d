-- Records a repost among its original's reposters, one repost per reposter,
-- and sets the original's reposts_count to how many reposters it has: sent
-- twice, it is still right.
-- KEYS[1]: ZSET reposts:<orig mid> (reposter uid, score = the repost's mid);
-- KEYS[2]: HASH B:<orig mid> (one message's keys).
-- ARGV[1]: the reposter's uid; ARGV[2]: the repost's mid; ARGV[3]: the mid of
-- an earlier repost of theirs that is gone (which this one may replace), or "";
-- ARGV[4]: the counter's field (reposts_count).
-- Returns 1 when recorded (or the original is deleted: nothing to count), 0
-- when the reposter has another repost of it. An original whose hash has
-- left Redis for the archive still records its reposters (one each); its
-- count is then the archive's.
if redis.call('HGET', KEYS[2], 'deleted') == '1' then
  return 1
end
local cur = redis.call('ZSCORE', KEYS[1], ARGV[1])
if cur and cur ~= ARGV[2] and cur ~= ARGV[3] then
  return 0
end
redis.call('ZADD', KEYS[1], ARGV[2], ARGV[1])
if redis.call('EXISTS', KEYS[2]) == 1 then
  redis.call('HSET', KEYS[2], ARGV[4], redis.call('ZCARD', KEYS[1]))
end
return 1

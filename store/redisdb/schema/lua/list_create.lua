-- Makes a list of one user's unless the user has as many as it may.
-- KEYS[1]: ZSET of the user's lists; KEYS[2]: HASH of the new list;
-- KEYS[3]: SET of the ids of the user's exclusive lists
-- ARGV[1]: the list's id; ARGV[2]: now (ms); ARGV[3]: the cap of lists;
-- ARGV[4]: title; ARGV[5]: replies_policy; ARGV[6]: "1" when exclusive
-- Returns 1 when made, -1 when the user has the cap of lists already.
if redis.call('ZCARD', KEYS[1]) >= tonumber(ARGV[3]) then return -1 end
redis.call('HSET', KEYS[2], 'title', ARGV[4], 'replies_policy', ARGV[5])
if ARGV[6] == '1' then
  redis.call('HSET', KEYS[2], 'exclusive', '1')
  redis.call('SADD', KEYS[3], ARGV[1])
end
redis.call('ZADD', KEYS[1], ARGV[2], ARGV[1])
return 1

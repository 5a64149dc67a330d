-- Adds a member to a sorted set unless it would grow past a cap: a block, a
-- mute or a pin past the user's limit is refused whole.
-- KEYS[1]: ZSET of one user (its blocking, muting or pinned set)
-- ARGV[1]: score (ms); ARGV[2]: member; ARGV[3]: the cap
-- Returns 1 when added, 0 when it was there already, -1 when full.
if redis.call('ZSCORE', KEYS[1], ARGV[2]) then return 0 end
if redis.call('ZCARD', KEYS[1]) >= tonumber(ARGV[3]) then return -1 end
return redis.call('ZADD', KEYS[1], ARGV[1], ARGV[2])

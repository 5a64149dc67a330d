#!lua flags=no-writes
-- What a list of conversations shows of one, as one user holds it.
-- KEYS[1]: ZSET conv:<uid>:<other>; KEYS[2]: ZSET conv:<uid>:read;
-- KEYS[3]: ZSET conv:<uid>:archived (one user's keys)
-- ARGV[1]: other's uid.
-- Returns {its newest message id, its oldest in Redis, the read mark, how
-- many messages in Redis are past the mark, the archived mark}; "0" for
-- what there is not.
local newest = redis.call('ZREVRANGE', KEYS[1], 0, 0)[1] or '0'
local oldest = redis.call('ZRANGE', KEYS[1], 0, 0)[1] or '0'
local mark = redis.call('ZSCORE', KEYS[2], ARGV[1]) or '0'
local archived = redis.call('ZSCORE', KEYS[3], ARGV[1]) or '0'
return {newest, oldest, mark, tostring(redis.call('ZCOUNT', KEYS[1], '(' .. mark, '+inf')), archived}

#!lua flags=allow-oom
-- Takes one from a counter of a hash, even when Redis is out of memory: a
-- delete frees memory, and must not leave its count behind for lack of it.
-- KEYS[1]: the hash (one user's user:userid:<uid>); ARGV[1]: the field.
-- Returns the new value.
return redis.call('HINCRBY', KEYS[1], ARGV[1], -1)

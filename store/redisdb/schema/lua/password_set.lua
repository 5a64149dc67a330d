-- Sets a user's password record from a reset link, only while the record
-- is still the one the link was made for (a user with no local password
-- has none: the empty string), so that of two uses of links made for one
-- record only one sets it.
-- KEYS[1]: HASH user:userid:<uid> (one user's key)
-- ARGV[1]: the bcrypt hash the link was made for, or ''; ARGV[2]: the new
-- bcrypt hash; ARGV[3]: the new pre-hash key.
-- Returns 1 when the record was set, 0 when it had changed or the user is gone.
if redis.call('EXISTS', KEYS[1]) == 0 then return 0 end
if (redis.call('HGET', KEYS[1], 'password') or '') ~= ARGV[1] then return 0 end
redis.call('HSET', KEYS[1], 'password', ARGV[2], 'password_key', ARGV[3])
return 1

-- Replaces a user's password record only while it is still the one the
-- caller checked, so that a login upgrading an old record and a password
-- change racing it cannot undo each other.
-- KEYS[1]: HASH user:userid:<uid> (one user's key)
-- ARGV[1]: the bcrypt hash the caller read; ARGV[2]: the new bcrypt hash;
-- ARGV[3]: the new pre-hash key.
-- Returns 1 when the record was replaced, 0 when it had changed meanwhile.
if redis.call('HGET', KEYS[1], 'password') ~= ARGV[1] then return 0 end
redis.call('HSET', KEYS[1], 'password', ARGV[2], 'password_key', ARGV[3])
return 1

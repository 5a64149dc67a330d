-- hincrby_if_exists adds to a counter of a hash only while the hash exists,
-- so that counting a comment or repost never brings a deleted message back as
-- a hash holding nothing but a counter.
-- KEYS[1]: the hash (one message's B:<mid>)
-- ARGV[1]: the field, ARGV[2]: the increment
-- Returns the new value, or false when the hash does not exist.
if redis.call('EXISTS', KEYS[1]) == 1 then
  return redis.call('HINCRBY', KEYS[1], ARGV[1], ARGV[2])
end
return false

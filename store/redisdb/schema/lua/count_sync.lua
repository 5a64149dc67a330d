#!lua flags=allow-oom
-- Sets a counter of a message to the size of the set it counts, while the
-- message exists: sent twice, or after any failure, it is still right, and
-- it never brings a deleted message back as a hash holding only a counter.
-- It runs even when Redis is out of memory (a delete must fix its counts).
-- KEYS[1]: HASH B:<mid>; KEYS[2]: the ZSET counted (C:<mid>:commentID or
-- reposts:<mid>), both one message's keys.
-- ARGV[1]: the counter's field.
-- Returns the count, or false when the message does not exist.
if redis.call('EXISTS', KEYS[1]) == 0 then
  return false
end
local n = redis.call('ZCARD', KEYS[2])
redis.call('HSET', KEYS[1], ARGV[1], n)
return n

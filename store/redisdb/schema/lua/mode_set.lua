-- Changes an author's fan-out state (modes.go) if it is still as the caller
-- read it, and only while the caller holds the author's mode lock: a
-- process whose lock expired while it stalled changes nothing.
-- KEYS[1]: HASH user:userid:<uid>; KEYS[2]: STRING lock:fanout:<uid> (one
-- slot: both carry the author's hash tag)
-- ARGV[1]: the lock's token; ARGV[2]: the fanout expected ("" push, pull,
-- drain); ARGV[3]: the drain token expected, or "*" for any
-- ARGV[4], ARGV[5], ...: field, value pairs to write; an empty value deletes
-- the field
-- Returns 1 when written; 0 when the user or its state is not as expected;
-- -1 when the caller no longer holds the lock.
if redis.call('GET', KEYS[2]) ~= ARGV[1] then
  return -1
end
if redis.call('EXISTS', KEYS[1]) == 0 then
  return 0
end
local mode = redis.call('HGET', KEYS[1], 'fanout') or ''
local drain = redis.call('HGET', KEYS[1], 'drain') or ''
if mode ~= ARGV[2] or (ARGV[3] ~= '*' and drain ~= ARGV[3]) then
  return 0
end
for i = 4, #ARGV, 2 do
  if ARGV[i + 1] == '' then
    redis.call('HDEL', KEYS[1], ARGV[i])
  else
    redis.call('HSET', KEYS[1], ARGV[i], ARGV[i + 1])
  end
end
return 1

-- Deletes a key only while it holds one of the given values: gives up an
-- Idempotency-Key this request still holds (its claim or its result, not a
-- retry's claim), or a lock this process still holds.
-- KEYS[1]: STRING (one user's idem:<uid>:<key hash>, or a lock)
-- ARGV: the values it may hold.
-- Returns 1 when the key was deleted.
local cur = redis.call('GET', KEYS[1])
for _, v in ipairs(ARGV) do
  if cur == v then
    return redis.call('DEL', KEYS[1])
  end
end
return 0

-- Deletes a key only while it holds one of the given values: an owner gives
-- back a name (username or skeleton index) without ever removing a new
-- owner's, a request gives up an Idempotency-Key it still holds (its claim or
-- its result, not a retry's claim), a process a lock it still holds.
-- KEYS[1]: STRING (user:username:<name>:uid, user:skeleton:<skeleton>:uid,
-- one user's idem:<uid>:<key hash>, or a lock)
-- ARGV: the values it may hold.
-- Returns 1 when the key was deleted, else 0.
local cur = redis.call('GET', KEYS[1])
for _, v in ipairs(ARGV) do
  if cur == v then
    return redis.call('DEL', KEYS[1])
  end
end
return 0

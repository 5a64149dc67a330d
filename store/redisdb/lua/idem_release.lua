-- Gives up an Idempotency-Key, if it still holds what this request put
-- there (its claim or its result), so that a retry may try again; another
-- request's claim stays.
-- KEYS[1]: STRING idem:<uid>:<key hash> (one user's key)
-- ARGV: the values this request may have left.
-- Returns 1 when the key was removed.
local cur = redis.call('GET', KEYS[1])
for _, v in ipairs(ARGV) do
  if cur == v then
    return redis.call('DEL', KEYS[1])
  end
end
return 0

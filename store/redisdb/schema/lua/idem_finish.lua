-- Records the post a request made under its Idempotency-Key, unless another
-- request holds the key by now (this one's claim ran out first).
-- KEYS[1]: STRING idem:<uid>:<key hash> (one user's key)
-- ARGV[1]: the request's claim, "claim:<token>:<request hash>";
-- ARGV[2]: the result, "post:<mid>:<request hash>"; ARGV[3]: its TTL (ms).
-- Returns 1 when the key holds the result, 0 when another request holds it.
local cur = redis.call('GET', KEYS[1])
if cur and cur ~= ARGV[1] and cur ~= ARGV[2] then
  return 0
end
redis.call('SET', KEYS[1], ARGV[2], 'PX', ARGV[3])
return 1

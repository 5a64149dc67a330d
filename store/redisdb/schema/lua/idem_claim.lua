-- Claims an Idempotency-Key for one request, or tells what holds it.
-- KEYS[1]: STRING idem:<uid>:<key hash> (one user's key)
-- ARGV[1]: the claim, "claim:<token>:<request hash>"; ARGV[2]: its TTL (ms);
-- ARGV[3]: a claim "0" left by an older version whose TTL (ms) is below this
-- is stale (its request is long gone) and is taken over.
-- Returns what the key holds now: ARGV[1] when the claim is this request's,
-- taken now or by an earlier send of the same request, whose reply was lost.
local cur = redis.call('GET', KEYS[1])
if cur and not (cur == '0' and redis.call('PTTL', KEYS[1]) < tonumber(ARGV[3])) then
  return cur
end
redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[2])
return ARGV[1]

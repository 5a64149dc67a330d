-- Finishes a new message on one Redis, last in the transaction (or the
-- checker's pipeline) that writes it: records the result under its
-- Idempotency-Key and publishes its live events, only if the message
-- stands: its repost is the one recorded, and no other request holds its
-- key (this one's claim ran out first). A message that does not stand is
-- taken out again, and must never have been shown live.
-- KEYS: the ones in use, in this order: STRING idem:<uid>:<key hash> (one
-- user's key) when ARGV[1] is set; ZSET reposts:<orig mid> and HASH
-- B:<orig mid> when ARGV[4] is set.
-- ARGV[1]: the request's claim, or "" for no key; ARGV[2]: the result,
-- "post:<mid>:<request hash>"; ARGV[3]: its TTL (ms); ARGV[4]: the
-- reposter's uid, or "" for no repost; ARGV[5]: the repost's mid;
-- ARGV[6..]: channel, frame pairs to publish, a frame "" standing for the
-- one before (one frame to several channels is sent once).
-- Returns 1 when the message stands (its events published), 0 when another
-- request holds the key, -1 when another repost of its author's was
-- recorded.
local k = 1
if ARGV[1] ~= '' then
  k = 2
end
if ARGV[4] ~= '' and redis.call('HGET', KEYS[k + 1], 'deleted') ~= '1' then
  local score = redis.call('ZSCORE', KEYS[k], ARGV[4])
  if not score or tonumber(score) ~= tonumber(ARGV[5]) then
    return -1
  end
end
if ARGV[1] ~= '' then
  local cur = redis.call('GET', KEYS[1])
  if cur and cur ~= ARGV[1] and cur ~= ARGV[2] then
    return 0
  end
  redis.call('SET', KEYS[1], ARGV[2], 'PX', ARGV[3])
end
local frame
for i = 6, #ARGV, 2 do
  if ARGV[i + 1] ~= '' then
    frame = ARGV[i + 1]
  end
  redis.call('PUBLISH', ARGV[i], frame)
end
return 1

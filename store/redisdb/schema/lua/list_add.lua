-- Adds accounts to one of a user's lists, all or none: each must be one the
-- user follows, and the list may not grow past its cap. All keys are the
-- owner's, on one slot.
-- KEYS[1]: HASH of the list; KEYS[2]: ZSET of its members;
-- KEYS[3]: ZSET of whom the owner follows (A:<uid>:loverID)
-- ARGV[1]: now (ms); ARGV[2]: the cap of members; ARGV[3...]: uids to add
-- Returns the number added, -1 when there is no such list, -2 when one of
-- them is not followed, -3 when the list would hold more than the cap.
if redis.call('EXISTS', KEYS[1]) == 0 then return -1 end
local fresh = 0
for i = 3, #ARGV do
  if not redis.call('ZSCORE', KEYS[3], ARGV[i]) then return -2 end
  if not redis.call('ZSCORE', KEYS[2], ARGV[i]) then fresh = fresh + 1 end
end
if redis.call('ZCARD', KEYS[2]) + fresh > tonumber(ARGV[2]) then return -3 end
for i = 3, #ARGV do
  redis.call('ZADD', KEYS[2], 'NX', ARGV[1], ARGV[i])
end
return fresh

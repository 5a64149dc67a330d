-- Removes a message's hash and its likes set from Redis once the archive
-- holds the message and the likes the archiver read (ARGV), unless they
-- changed since: a like or an unlike made meanwhile, or an edit the archive
-- does not have yet, keeps both in Redis until the next try. A tombstone
-- stays (its own batch removes it).
-- KEYS[1]: HASH B:<mid>; KEYS[2]: ZSET likes:<mid> (one message's keys)
-- ARGV[1..n]: the uids in likes:<mid> when the archiver read it.
-- Returns 1 when both were removed, 0 when there was no message hash, -1
-- when they stay.
if redis.call('EXISTS', KEYS[1]) == 0 then return 0 end
if redis.call('HGET', KEYS[1], 'deleted') == '1' then return 0 end
if redis.call('HEXISTS', KEYS[1], 'edit_pending') == 1 then return -1 end
if redis.call('ZCARD', KEYS[2]) ~= #ARGV then return -1 end
for _, uid in ipairs(ARGV) do
  if not redis.call('ZSCORE', KEYS[2], uid) then return -1 end
end
redis.call('DEL', KEYS[1], KEYS[2])
return 1

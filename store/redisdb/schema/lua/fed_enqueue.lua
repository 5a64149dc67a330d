-- Queues one delivery: its body once, with the count of all its jobs, and
-- its first jobs (a delivery to very many inboxes adds the rest with
-- fed_enqueue_more.lua).
-- KEYS[1]: STREAM fed:deliveries; KEYS[2]: HASH fed:delivery:<ref>
-- ARGV[1]: the job field name; ARGV[2]: the activity's JSON; ARGV[3]: its
-- id; ARGV[4]: the signer's uid; ARGV[5]: how many jobs the delivery has in
-- all; ARGV[6]: how long the body may live at most (ms: past the last
-- retry, should a job never be settled); ARGV[7]: the signing key the
-- delivery carries (store.Delivery.Key: a deleted account's), "" for none;
-- ARGV[8..]: each job's form (ref|0|first|inbox).
-- Returns how many jobs it queued.
redis.call('HSET', KEYS[2], 'b', ARGV[2], 'i', ARGV[3], 's', ARGV[4], 'left', ARGV[5])
if ARGV[7] ~= '' then redis.call('HSET', KEYS[2], 'k', ARGV[7]) end
redis.call('PEXPIRE', KEYS[2], ARGV[6])
for i = 8, #ARGV do
  redis.call('XADD', KEYS[1], '*', ARGV[1], ARGV[i])
end
return #ARGV - 7

-- Settles a delivery job for good (sent, refused, or given up): it leaves
-- the queue, and its delivery's body goes with its last job. Only the
-- consumer that still holds the entry settles it: one that another took
-- over meanwhile (XACK answers 0) changes nothing.
-- KEYS[1]: STREAM fed:deliveries; KEYS[2]: HASH fed:delivery:<ref>
-- ARGV[1]: the group; ARGV[2]: the entry id.
-- Returns 1 when it settled the job, 0 when it was not held.
if redis.call('XACK', KEYS[1], ARGV[1], ARGV[2]) == 0 then
  return 0
end
redis.call('XDEL', KEYS[1], ARGV[2])
if redis.call('HINCRBY', KEYS[2], 'left', -1) <= 0 then
  redis.call('DEL', KEYS[2])
end
return 1

-- Puts a delivery job off until it is due again: in one step, so that the
-- job is in the retries before it leaves the stream, and never lost between
-- them. Only the consumer that still holds the entry moves it.
-- KEYS[1]: STREAM fed:deliveries; KEYS[2]: ZSET fed:retries
-- ARGV[1]: the group; ARGV[2]: the entry id; ARGV[3]: when it is due (unix
-- ms); ARGV[4]: the job's new form (ref|attempt|first|inbox).
-- Returns 1 when it moved the job, 0 when it was not held.
if redis.call('XACK', KEYS[1], ARGV[1], ARGV[2]) == 0 then
  return 0
end
redis.call('XDEL', KEYS[1], ARGV[2])
redis.call('ZADD', KEYS[2], ARGV[3], ARGV[4])
return 1

-- Adds more jobs of a delivery that fed_enqueue.lua queued (and counted).
-- KEYS[1]: STREAM fed:deliveries
-- ARGV[1]: the job field name; ARGV[2..]: each job's form.
-- Returns how many jobs it queued.
for i = 2, #ARGV do
  redis.call('XADD', KEYS[1], '*', ARGV[1], ARGV[i])
end
return #ARGV - 1

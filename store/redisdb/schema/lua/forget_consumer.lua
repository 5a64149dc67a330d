-- Takes a consumer out of a queue's group if it holds no entry: the
-- consumer whose entries another took over, a process that stopped or died.
-- One that holds none loses nothing (deleting a consumer drops its pending
-- entries, so one that holds some stays), and a live one is made again by
-- its next read.
-- KEYS[1]: STREAM (fanout:queue, fanout:parts or archive:queue)
-- ARGV[1]: the group; ARGV[2]: the consumer.
-- Returns 0 when the consumer holds entries and stays, else 1.
if #redis.call('XPENDING', KEYS[1], ARGV[1], '-', '+', 1, ARGV[2]) > 0 then
  return 0
end
redis.call('XGROUP', 'DELCONSUMER', KEYS[1], ARGV[1], ARGV[2])
return 1

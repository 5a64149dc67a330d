-- Adds a private message to one side of its conversation: its id to the
-- conversation's hot set, the conversation to the top of the user's list,
-- and, on its sender's side, the read mark up to it (writing is reading);
-- on its recipient's, the conversation to the unread ones. Sent again, it
-- changes nothing more.
-- KEYS[1]: ZSET conv:<uid>:<other>; KEYS[2]: ZSET conv:<uid>;
-- KEYS[3]: ZSET conv:<uid>:read; KEYS[4]: SET conv:<uid>:unread (one user's keys)
-- ARGV[1]: the message's id; ARGV[2]: other's uid; ARGV[3]: "1" on the
-- sender's side.
redis.call('ZADD', KEYS[1], ARGV[1], ARGV[1])
redis.call('ZADD', KEYS[2], 'GT', ARGV[1], ARGV[2])
if ARGV[3] == '1' then
  redis.call('ZADD', KEYS[3], 'GT', ARGV[1], ARGV[2])
  redis.call('SREM', KEYS[4], ARGV[2])
  return 1
end
local mark = redis.call('ZSCORE', KEYS[3], ARGV[2])
if not mark or tonumber(mark) < tonumber(ARGV[1]) then
  redis.call('SADD', KEYS[4], ARGV[2])
end
return 1

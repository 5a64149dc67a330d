-- Removes one notification of a user, as the user dismissed it in an app.
-- KEYS[1]: ZSET N:<uid>:notificationID; KEYS[2]: HASH N:<uid>:notes (one user's keys)
-- ARGV[1]: the notification's id.
-- Returns 1 when it was there, 0 when not.
local json = redis.call('HGET', KEYS[2], ARGV[1])
if not json then return 0 end
local undo = cjson.decode(json)['u']
if undo and redis.call('HGET', KEYS[2], undo) == ARGV[1] then
  redis.call('HDEL', KEYS[2], undo)
end
redis.call('HDEL', KEYS[2], ARGV[1])
redis.call('ZREM', KEYS[1], ARGV[1])
return 1

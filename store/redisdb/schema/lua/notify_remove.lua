-- Removes the notification an undone action made (unlike, unfollow).
-- KEYS[1]: ZSET N:<uid>:notificationID; KEYS[2]: HASH N:<uid>:notes (one user's keys)
-- ARGV[1]: the undo field ("k:<kind>:<actor>:<post>").
-- Returns the removed notification's id, or false when there was none.
local id = redis.call('HGET', KEYS[2], ARGV[1])
if not id then return false end
redis.call('HDEL', KEYS[2], ARGV[1], id)
redis.call('ZREM', KEYS[1], id)
return id

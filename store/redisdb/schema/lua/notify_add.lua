-- Adds one notification of a user and keeps only the newest ARGV[4].
-- KEYS[1]: ZSET N:<uid>:notificationID (ids, score = id)
-- KEYS[2]: HASH N:<uid>:notes (id -> JSON with "u", its undo field; undo field -> id)
-- ARGV[1]: the notification's id; ARGV[2]: its JSON; ARGV[3]: its undo field, or "" for
-- none (an older notification with the same undo field is replaced); ARGV[4]: how many to keep.
-- Both keys are one user's. Returns how many old notifications were dropped.
local function drop(id)
  local json = redis.call('HGET', KEYS[2], id)
  if json then
    local undo = cjson.decode(json)['u']
    if undo and redis.call('HGET', KEYS[2], undo) == id then
      redis.call('HDEL', KEYS[2], undo)
    end
    redis.call('HDEL', KEYS[2], id)
  end
  redis.call('ZREM', KEYS[1], id)
end
if ARGV[3] ~= '' then
  local old = redis.call('HGET', KEYS[2], ARGV[3])
  if old then drop(old) end
  redis.call('HSET', KEYS[2], ARGV[3], ARGV[1])
end
redis.call('HSET', KEYS[2], ARGV[1], ARGV[2])
redis.call('ZADD', KEYS[1], ARGV[1], ARGV[1])
local excess = redis.call('ZRANGE', KEYS[1], 0, -(tonumber(ARGV[4]) + 1))
for _, id in ipairs(excess) do drop(id) end
return #excess

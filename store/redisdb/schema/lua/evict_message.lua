-- Removes a message's hash from Redis once the archive holds it: a message
-- leaving its author's hot window (ARGV[1] = "message": a tombstone stays),
-- or a tombstone whose delete the archive now has (ARGV[1] = "tombstone": a
-- message stays).
-- KEYS[1]: HASH B:<mid> (one message's key)
-- Returns 1 when the hash was removed, else 0.
local tomb = redis.call('HGET', KEYS[1], 'deleted') == '1'
if tomb == (ARGV[1] == 'tombstone') then return redis.call('DEL', KEYS[1]) end
return 0

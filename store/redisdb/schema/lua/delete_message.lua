#!lua flags=allow-oom
-- Deletes a message's hash, once: of two concurrent deletes only one gets 1.
-- With the archive on, the hash becomes a tombstone {deleted = 1}, which
-- readers take as gone (instead of finding the message in the archive) until
-- the archive has the delete too. It frees memory, so it runs even when
-- Redis is out of memory.
-- KEYS[1]: HASH B:<mid> (one message's key)
-- ARGV[1]: "1" to leave a tombstone; ARGV[2]: "1" when the caller found the
-- message in the archive, so that its hash may already be gone from Redis.
-- Returns 1 when this call deleted it, 0 when it was deleted already, -1 when
-- the hash is gone and the caller did not find the message in the archive.
if redis.call('HGET', KEYS[1], 'deleted') == '1' then return 0 end
if redis.call('EXISTS', KEYS[1]) == 0 and ARGV[2] ~= '1' then return -1 end
redis.call('DEL', KEYS[1])
if ARGV[1] == '1' then redis.call('HSET', KEYS[1], 'deleted', '1') end
return 1

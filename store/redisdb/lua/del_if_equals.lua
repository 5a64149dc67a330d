-- Deletes a key only while it holds the given value: an owner gives back a
-- name (username or skeleton index) without ever removing a new owner's.
-- KEYS[1]: STRING user:username:<name>:uid or user:skeleton:<skeleton>:uid
-- ARGV[1]: the uid expected.
-- Returns 1 when the key was deleted, else 0.
if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) end
return 0

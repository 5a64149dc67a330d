-- Edits a message in Redis: its hash takes the new content, mentions, tags
-- and edited time, and its history the version it replaces, at once, so
-- that an edit and a delete racing each other end in a deleted message
-- (the delete's tombstone, or its DEL, refuses every later edit), never in
-- a half-edited one.
-- KEYS[1]: HASH B:<mid>; KEYS[2]: LIST history:<mid> (one message's keys)
-- ARGV[1]: the new content; ARGV[2], ARGV[3]: its mentions and tags (JSON);
-- ARGV[4]: now (unix ms); ARGV[5]: the most edits allowed; ARGV[6]: "1" to
-- mark the edit pending for the archive.
-- Returns {-1} when the message is deleted (a tombstone), {-2} when its
-- hash is not in Redis (archived, or gone), {-3} past the limit, {0} when
-- the content is the same, else {1, the edit's time, the old content, old
-- mentions, old tags, then every version of the history, oldest first}.
local h = redis.call('HMGET', KEYS[1], 'kind', 'deleted', 'content', 'time', 'edited', 'mentions', 'tags')
if h[2] == '1' then return {-1} end
if not h[1] then return {-2} end
if h[3] == ARGV[1] then return {0} end
if redis.call('LLEN', KEYS[2]) >= tonumber(ARGV[5]) then return {-3} end
-- Each edit is later than the one before, even within a millisecond: the
-- archive keeps the newest by this time.
local at = math.max(tonumber(ARGV[4]), (tonumber(h[5]) or 0) + 1)
redis.call('RPUSH', KEYS[2], (h[5] or h[4]) .. ':' .. h[3])
redis.call('HSET', KEYS[1], 'content', ARGV[1], 'mentions', ARGV[2], 'tags', ARGV[3], 'edited', at)
if ARGV[6] == '1' then redis.call('HSET', KEYS[1], 'edit_pending', at) end
local out = {1, at, h[3], h[6] or '', h[7] or ''}
for _, v in ipairs(redis.call('LRANGE', KEYS[2], 0, -1)) do out[#out + 1] = v end
return out

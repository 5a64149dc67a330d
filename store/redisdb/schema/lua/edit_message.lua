-- Edits a message in Redis: its hash takes the new content, mentions, tags
-- and edited time, and its history the version it replaces, at once, so
-- that an edit and a delete racing each other end in a deleted message
-- (the delete's tombstone, or its DEL, refuses every later edit), never in
-- a half-edited one.
-- KEYS[1]: HASH B:<mid>; KEYS[2]: LIST history:<mid> (one message's keys)
-- ARGV[1]: the editor's uid; ARGV[2]: the new content; ARGV[3], ARGV[4]:
-- its mentions and tags (JSON); ARGV[5]: now (unix ms); ARGV[6]: the most
-- edits allowed; ARGV[7]: "1" to mark the edit pending for the archive;
-- ARGV[8]: "1" when the content is blank, which only a post that reposts
-- or carries images may be; ARGV[9]: "1" to set the content warning to
-- ARGV[10] (empty: none), else it stays; ARGV[11] on: the hash fields to
-- answer with.
-- Returns {-1} when the message is deleted (a tombstone), {-2} when its
-- hash is not in Redis (archived, or gone), {-3} past the limit, {-4} when
-- the editor is not its author, {-5} when it may not be blank, {0} when the
-- content and content warning are the same, else {1, the edit's time, the old content, old
-- mentions, old tags, {every version of the history, oldest first},
-- {the fields asked for, as edited}}.
local h = redis.call('HMGET', KEYS[1], 'kind', 'deleted', 'content', 'time', 'edited', 'mentions', 'tags',
  'author', 'repost_of', 'media', 'spoiler')
if h[2] == '1' then return {-1} end
if not h[1] then return {-2} end
if h[8] ~= ARGV[1] then return {-4} end
local bare = (h[9] or '') == '' and ((h[10] or '') == '' or h[10] == '[]' or h[10] == 'null')
if ARGV[8] == '1' and (h[1] == 'comment' or bare) then return {-5} end
local spoiler = h[11] or ''
if ARGV[9] == '1' then spoiler = ARGV[10] end
if h[3] == ARGV[2] and spoiler == (h[11] or '') then return {0} end
if redis.call('LLEN', KEYS[2]) >= tonumber(ARGV[6]) then return {-3} end
-- Each edit is later than the one before, even within a millisecond: the
-- archive keeps the newest by this time.
local at = math.max(tonumber(ARGV[5]), (tonumber(h[5]) or 0) + 1)
redis.call('RPUSH', KEYS[2], (h[5] or h[4]) .. ':' .. h[3])
redis.call('HSET', KEYS[1], 'content', ARGV[2], 'mentions', ARGV[3], 'tags', ARGV[4], 'edited', at)
if spoiler == '' then redis.call('HDEL', KEYS[1], 'spoiler') else redis.call('HSET', KEYS[1], 'spoiler', spoiler) end
if ARGV[7] == '1' then redis.call('HSET', KEYS[1], 'edit_pending', at) end
return {1, at, h[3], h[6] or '', h[7] or '', redis.call('LRANGE', KEYS[2], 0, -1),
  redis.call('HMGET', KEYS[1], unpack(ARGV, 11))}

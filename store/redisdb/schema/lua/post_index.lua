-- Writes and indexes a new post on one Redis: its hash (B), its D and E
-- keys, its archive queue entry, and what post_add.lua, the author's own
-- home timeline, the public timeline and pending_add.lua with the push job
-- took up to eight commands and two scripts for, in one call; with its live
-- events when nothing is left to decide about them (no Idempotency-Key, not
-- a repost: see post_finish.lua). A post that needs nothing else (no topics,
-- images, poll, key or repost) is this one call, sent alone with EVALSHA:
-- a script runs whole or not at all, where EVALSHA inside MULTI answered
-- NOSCRIPT would leave the transaction's other writes applied. Else it goes
-- inside the transaction that writes the rest, with EVAL. A cluster, where
-- these keys live on different masters, keeps those steps.
-- KEYS[1]: ZSET F:<uid>:messageID; KEYS[2]: HASH user:userid:<uid>;
-- KEYS[3]: ZSET G:<uid>:messageID (the author's own home timeline);
-- KEYS[4]: ZSET global:timeline; KEYS[5]: HASH fanout:pending and KEYS[6]:
-- ZSET fanout:pushing of the author's shard; KEYS[7]: STREAM fanout:queue;
-- KEYS[8]: STRING D:<mid>:publicTime; KEYS[9]: STRING E:<mid>:personID;
-- KEYS[10]: HASH B, the message; KEYS[11]: STREAM archive:queue
-- ARGV[1]: the post's mid; ARGV[2]: its author; ARGV[3]: the counter's field
-- (posts_count); ARGV[4]: how many posts a home timeline keeps (the hot
-- window); ARGV[5]: "trim" to add the post to the public timeline and trim
-- that as G, "add" to add it untrimmed (the archiver trims it), "" for
-- neither (a protected author's post); ARGV[6]: "1" to mark its push in
-- flight and queue its job, "" for neither (its author is pulled); ARGV[7]:
-- when it was written (unix ms), for D and the hash; ARGV[8]: when its job
-- is queued (unix ms); ARGV[9]: h, the number of the hash's fields and
-- values beyond those every post has, -1 to leave the hash as it is (the
-- checker indexing a message written before); ARGV[10]: a, the number of the
-- archive entry's fields and values (0: no archive); ARGV[11..21] (none when
-- h is -1): the values of the fields every post has, as
-- schema.PostIndexFields names them (the author and the time are ARGV[2] and
-- ARGV[7]: each argument costs Redis a Lua string, a name written here
-- none); then the h, then the a; then channel, frame pairs to publish, a
-- frame "" standing for the one before (a post's frame to its author's
-- channel, the public one and its topics' is one: sent once, not once a
-- channel).
-- The same write sent again counts the post once and marks it once
-- (post_add.lua, pending_add.lua); the job it queues again pushes the post
-- again, which changes nothing.
local mid = ARGV[1]
local h, a = tonumber(ARGV[9]), tonumber(ARGV[10])
local at = 11
if h >= 0 then
  -- The hash as schema.PostHash.Args writes it, field for field and in order.
  redis.call('HSET', KEYS[10], 'content', ARGV[11], 'author', ARGV[2], 'username', ARGV[12], 'time', ARGV[7],
    'kind', ARGV[13], 'repost_of', ARGV[14], 'parent', ARGV[15], 'comments_count', ARGV[16],
    'reposts_count', ARGV[17], 'likes_count', ARGV[18], 'mentions', ARGV[19], 'tags', ARGV[20], 'media', ARGV[21])
  at = 22
  if h > 0 then
    redis.call('HSET', KEYS[10], unpack(ARGV, at, at + h - 1))
  end
  at = at + h
end
redis.call('MSET', KEYS[8], ARGV[7], KEYS[9], ARGV[2])
if redis.call('ZADD', KEYS[1], mid, mid) == 1 then
  redis.call('HINCRBY', KEYS[2], ARGV[3], 1)
end
local keep = -tonumber(ARGV[4]) - 1
redis.call('ZADD', KEYS[3], mid, mid)
redis.call('ZREMRANGEBYRANK', KEYS[3], 0, keep)
if ARGV[5] ~= '' then
  redis.call('ZADD', KEYS[4], mid, mid)
  if ARGV[5] == 'trim' then
    redis.call('ZREMRANGEBYRANK', KEYS[4], 0, keep)
  end
end
if ARGV[6] == '1' then
  if redis.call('HSETNX', KEYS[5], mid, ARGV[2]) == 1 then
    redis.call('ZINCRBY', KEYS[6], 1, ARGV[2])
  end
  -- The push job, as schema.Job.Values writes it.
  redis.call('XADD', KEYS[7], '*', 'op', 'push', 'author', ARGV[2], 'mid', mid, 'at', ARGV[8])
end
if a > 0 then
  redis.call('XADD', KEYS[11], '*', unpack(ARGV, at, at + a - 1))
end
at = at + a
local frame
for i = at, #ARGV - 1, 2 do
  if ARGV[i + 1] ~= '' then
    frame = ARGV[i + 1]
  end
  redis.call('PUBLISH', ARGV[i], frame)
end
return 0

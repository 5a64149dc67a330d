-- Takes away the in-flight marks of posts whose push jobs are done; an
-- author leaves fanout:pushing with its last one. A mark taken twice, or
-- never made, changes nothing. A batch's marks are read, taken and counted
-- in a few calls whatever its size (HMGET, HDEL, a ZINCRBY an author):
-- each redis.call costs Redis a few µs of its own, and a call a mark was
-- two a post.
-- KEYS[1]: HASH fanout:pending of one shard (mid → author)
-- KEYS[2]: ZSET fanout:pushing of the same shard (author → pushes in flight)
-- KEYS[3] (on a cluster): ZSET fanout:settled of the same shard (author →
-- when it left fanout:pushing, ms of this node's clock), kept ARGV[1] ms
-- ARGV[1]: how long fanout:settled keeps an author (ms; 0 without KEYS[3])
-- ARGV[2], ARGV[3], …: mid, author, mid, author, …: the posts, all by
-- authors of that shard.
local now
if #KEYS >= 3 then
  local t = redis.call('TIME')
  now = t[1] * 1000 + math.floor(t[2] / 1000)
  redis.call('ZREMRANGEBYSCORE', KEYS[3], '-inf', now - tonumber(ARGV[1]))
end
local mids = {}
for i = 2, #ARGV - 1, 2 do
  mids[#mids + 1] = ARGV[i]
end
if #mids == 0 then
  return 0
end
local marked = redis.call('HMGET', KEYS[1], unpack(mids))
local taken, seen, counts, authors = {}, {}, {}, {}
for k, mark in ipairs(marked) do
  local mid, author = mids[k], ARGV[2 * k + 1]
  if mark and not seen[mid] then
    seen[mid] = true
    taken[#taken + 1] = mid
    if not counts[author] then
      counts[author] = 0
      authors[#authors + 1] = author
    end
    counts[author] = counts[author] + 1
  end
end
if #taken == 0 then
  return 0
end
redis.call('HDEL', KEYS[1], unpack(taken))
for _, author in ipairs(authors) do
  if tonumber(redis.call('ZINCRBY', KEYS[2], -counts[author], author)) <= 0 then
    redis.call('ZREM', KEYS[2], author)
    if now then
      redis.call('ZADD', KEYS[3], now, author)
    end
  end
end
return 0

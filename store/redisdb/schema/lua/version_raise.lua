-- Raises the lowest writer version the data allows, never lowers it.
-- KEYS[1]: STRING global:version (the lowest writer version allowed).
-- ARGV[1]: the lowest writer version the caller's data stays right with.
-- Returns the lowest writer version allowed now.
local cur = tonumber(redis.call('GET', KEYS[1]) or '0')
local want = tonumber(ARGV[1])
if cur < want then
  redis.call('SET', KEYS[1], want)
  return want
end
return cur

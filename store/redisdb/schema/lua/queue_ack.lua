-- Acknowledges entries of a queue that are done, and takes out of the
-- stream every entry older than the oldest not done, in one XTRIM MINID. An
-- entry not done is pending in a group (read, not acknowledged) or not yet
-- read by it (after its last-delivered-id). XDEL of each entry done instead
-- walked the entry's node of the stream once an entry: 83 µs for a batch
-- of 33 on the development machine, against 1.3 µs for the trim. Entries
-- done behind an older one still in hand stay until it is done; the
-- stream's length so counts them meanwhile.
-- KEYS[1]: STREAM (fanout:queue, fanout:parts, archive:queue, …)
-- ARGV[1]: the group; ARGV[2], ARGV[3], …: the entries' ids.
-- Returns how many entries it acknowledged.
local n = redis.call('XACK', KEYS[1], ARGV[1], unpack(ARGV, 2))
-- An id as a pair of numbers (ms, seq), to compare.
local function parse(id)
  local ms, seq = string.match(id, '^(%d+)-(%d+)$')
  return tonumber(ms), tonumber(seq)
end
local minMs, minSeq
for _, g in ipairs(redis.call('XINFO', 'GROUPS', KEYS[1])) do
  local info = {}
  for i = 1, #g - 1, 2 do
    info[g[i]] = g[i + 1]
  end
  local ms, seq
  if tonumber(info['pending']) > 0 then
    ms, seq = parse(redis.call('XPENDING', KEYS[1], info['name'])[2])
  else
    ms, seq = parse(info['last-delivered-id'])
    seq = seq + 1
  end
  if not minMs or ms < minMs or (ms == minMs and seq < minSeq) then
    minMs, minSeq = ms, seq
  end
end
if minMs then
  redis.call('XTRIM', KEYS[1], 'MINID', string.format('%.0f-%.0f', minMs, minSeq))
end
return n

-- Hands back the entries of a queue that a stopping consumer still holds:
-- they stay pending under its name, but with an idle time past any claim
-- idle time, so that the next look of every other consumer for idle entries
-- (XPENDING with IDLE) takes them over at once. A consumer that holds none
-- leaves the group, so that the group does not collect the names of
-- processes long gone.
-- KEYS[1]: STREAM (fanout:queue, fanout:parts or archive:queue)
-- ARGV[1]: the group; ARGV[2]: the consumer; ARGV[3]: the idle time to give
-- its entries (ms).
-- Returns how many entries it handed back.
local n = 0
local start = '-'
while true do
  local held = redis.call('XPENDING', KEYS[1], ARGV[1], start, '+', 100, ARGV[2])
  if #held == 0 then
    break
  end
  local args = {'XCLAIM', KEYS[1], ARGV[1], ARGV[2], '0'}
  for _, e in ipairs(held) do
    args[#args + 1] = e[1]
  end
  args[#args + 1] = 'IDLE'
  args[#args + 1] = ARGV[3]
  args[#args + 1] = 'JUSTID'
  redis.call(unpack(args))
  n = n + #held
  start = '(' .. held[#held][1]
end
if n == 0 then
  redis.call('XGROUP', 'DELCONSUMER', KEYS[1], ARGV[1], ARGV[2])
end
return n

-- Records one choice of a remote user's vote in a local poll: ActivityPub
-- servers send a vote as one Note per option chosen, so a vote in a
-- multiple-choice poll arrives a choice at a time. The first choice makes
-- the voter one (as poll_vote.lua does); a later one of the same voter is
-- added to its vote when the poll takes several, refused otherwise.
-- KEYS and ARGV[1..3] as poll_vote.lua's; ARGV[4]: the index chosen.
-- Returns {-3} when the poll is not there, {-1} when it has closed, {-2}
-- when the user chose it already (or voted already in a poll of one
-- choice), {-4} when it is not an option, else {1, opened, voters, c0, ...}.
local n = tonumber(redis.call('HGET', KEYS[1], 'n') or '0')
if n == 0 then return {-3} end
if tonumber(redis.call('HGET', KEYS[1], 'expires') or '0') <= tonumber(ARGV[1]) then return {-1} end
local c = tonumber(ARGV[4])
if c == nil or c < 0 or c >= n then return {-4} end
local prev = redis.call('HGET', KEYS[2], ARGV[2])
local voters
if prev then
	if redis.call('HGET', KEYS[1], 'multiple') ~= '1' then return {-2} end
	for f in string.gmatch(prev, '[^,]+') do
		if tonumber(f) == c then return {-2} end
	end
	redis.call('HSET', KEYS[2], ARGV[2], prev .. ',' .. c)
	voters = tonumber(redis.call('HGET', KEYS[1], 'voters') or '0')
else
	redis.call('HSET', KEYS[2], ARGV[2], tostring(c))
	voters = redis.call('HINCRBY', KEYS[1], 'voters', 1)
end
redis.call('HINCRBY', KEYS[1], 'c' .. c, 1)
local out = {1, 0, voters}
if redis.call('SET', KEYS[3], '1', 'NX', 'PX', ARGV[3]) then out[2] = 1 end
for i = 0, n - 1 do
	out[#out + 1] = tonumber(redis.call('HGET', KEYS[1], 'c' .. i) or '0')
end
return out

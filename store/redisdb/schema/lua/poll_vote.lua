-- Records one user's vote in a poll, once, while the poll is open, and
-- tells whether this vote opens a window of live updates: a vote is this
-- one script, one round trip.
-- KEYS[1]: HASH poll:<mid> (n, multiple, expires, c0..c3, voters);
-- KEYS[2]: HASH poll:<mid>:voters (uid -> "i,j"); KEYS[3]: STRING
-- poll:<mid>:live (the window mark). All three share the post's hash tag.
-- ARGV[1]: now (unix ms); ARGV[2]: the voter's uid; ARGV[3]: the window
-- (ms); ARGV[4..]: the indexes chosen (checked by the caller, again here).
-- Returns {-3} when the poll is not there, {-1} when it has closed, {-2}
-- when the user voted already, {-4} when a choice is not an option, else
-- {1, opened (1 when this vote set the window mark), voters, c0, c1, ...}.
local n = tonumber(redis.call('HGET', KEYS[1], 'n') or '0')
if n == 0 then return {-3} end
if tonumber(redis.call('HGET', KEYS[1], 'expires') or '0') <= tonumber(ARGV[1]) then return {-1} end
if #ARGV < 4 or (#ARGV > 4 and redis.call('HGET', KEYS[1], 'multiple') ~= '1') then return {-4} end
local seen = {}
for i = 4, #ARGV do
	local c = tonumber(ARGV[i])
	if c == nil or c < 0 or c >= n or seen[c] then return {-4} end
	seen[c] = true
end
if redis.call('HSETNX', KEYS[2], ARGV[2], table.concat(ARGV, ',', 4)) == 0 then return {-2} end
for i = 4, #ARGV do
	redis.call('HINCRBY', KEYS[1], 'c' .. ARGV[i], 1)
end
local out = {1, 0, redis.call('HINCRBY', KEYS[1], 'voters', 1)}
if redis.call('SET', KEYS[3], '1', 'NX', 'PX', ARGV[3]) then out[2] = 1 end
for i = 0, n - 1 do
	out[#out + 1] = tonumber(redis.call('HGET', KEYS[1], 'c' .. i) or '0')
end
return out

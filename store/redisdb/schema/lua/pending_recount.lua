-- Counts fanout:pushing afresh from the marks of fanout:pending, at once:
-- schema 6's migration on a single Redis, where schema 5 kept the marks
-- alone. O(marks), once.
-- KEYS[1]: HASH fanout:pending (mid → author)
-- KEYS[2]: ZSET fanout:pushing (author → pushes in flight)
-- Returns the number of marks.
redis.call('DEL', KEYS[2])
local authors = redis.call('HVALS', KEYS[1])
for _, author in ipairs(authors) do
  redis.call('ZINCRBY', KEYS[2], 1, author)
end
return #authors

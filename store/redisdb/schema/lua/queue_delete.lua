#!lua flags=allow-oom
-- Queues a delete for the archive. A delete frees memory, so it runs even
-- when Redis is out of memory: else the archive would never learn of it.
-- KEYS[1]: STREAM archive:queue
-- ARGV: the entry's field-value pairs.
return redis.call('XADD', KEYS[1], '*', unpack(ARGV))

-- Clears the mark of an edit not archived yet (edit_message.lua) once the
-- archive has it: unless a newer edit is pending meanwhile.
-- KEYS[1]: HASH B:<mid> (one message's key)
-- ARGV[1]: the time of the edit the archive has (its Edited).
-- Returns 1 when the mark was cleared, else 0.
if redis.call('HGET', KEYS[1], 'edit_pending') == ARGV[1] then
  return redis.call('HDEL', KEYS[1], 'edit_pending')
end
return 0

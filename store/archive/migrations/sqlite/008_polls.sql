-- A post's poll: its definition, the JSON store.PollDefinition (options,
-- expires_at, multiple), '' without one. Its votes stay in Redis under the
-- poll's own keys, which the hot window does not move (docs/redis-keys.md,
-- "Polls").
ALTER TABLE messages ADD COLUMN poll TEXT NOT NULL DEFAULT '';

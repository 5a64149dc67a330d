-- A message keeps its content warning (store.Archived.Spoiler, empty:
-- none); a tombstone clears it with the text.
ALTER TABLE messages ADD COLUMN spoiler TEXT NOT NULL DEFAULT '';

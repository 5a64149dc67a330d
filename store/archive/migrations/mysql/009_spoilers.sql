-- A message keeps its content warning (store.Archived.Spoiler, empty:
-- none); a tombstone clears it with the text. A TEXT column takes its
-- implicit default, '', in the rows already there (as in 003).
ALTER TABLE messages ADD COLUMN spoiler TEXT NOT NULL;

-- An edited message keeps when it was last edited (unix ms, 0: never) and
-- its earlier versions, the JSON list of store.Version, oldest first (see
-- store.Archived); a tombstone clears the history with the text.
ALTER TABLE messages ADD COLUMN edited INTEGER NOT NULL DEFAULT 0;
ALTER TABLE messages ADD COLUMN history TEXT NOT NULL DEFAULT '';

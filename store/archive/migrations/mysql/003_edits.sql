-- An edited message keeps when it was last edited (unix ms, 0: never) and
-- its earlier versions, the JSON list of store.Version, oldest first (see
-- store.Archived); a tombstone clears the history with the text. One
-- statement, as in 001: MySQL cannot make a migration atomic, and a TEXT
-- column takes its implicit default, '', in the rows already there.
ALTER TABLE messages ADD COLUMN edited BIGINT NOT NULL DEFAULT 0, ADD COLUMN history TEXT NOT NULL;

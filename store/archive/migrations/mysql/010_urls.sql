-- A remote note keeps the address of its original (store.Archived.URL,
-- empty on local messages); a tombstone clears it with the text. A TEXT
-- column takes its implicit default, '', in the rows already there (as in
-- 003).
ALTER TABLE messages ADD COLUMN url TEXT NOT NULL;

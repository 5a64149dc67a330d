-- A remote note keeps the address of its original (store.Archived.URL,
-- empty on local messages); a tombstone clears it with the text.
ALTER TABLE messages ADD COLUMN url TEXT NOT NULL DEFAULT '';

-- search is the full-text index of posts (not comments, not tombstones):
-- one row per post, its rowid the post's id, holding the tokens of the
-- grams of its folded content (search_grams.go), written in the transaction
-- that saves the post, an edit of it or its tombstone. Contentless, for the
-- tokens are made again from the text when needed; detail=none, for a
-- search needs to know which posts hold a token, not where.
CREATE VIRTUAL TABLE IF NOT EXISTS search USING fts5(grams, content='', contentless_delete=1, tokenize='ascii', detail=none);

-- search_backfill is how far indexing the posts archived before this
-- migration has come: those with ids below next are still to do, down to 1.
CREATE TABLE IF NOT EXISTS search_backfill (
	id   INTEGER PRIMARY KEY,
	next INTEGER NOT NULL
);
INSERT INTO search_backfill (id, next) SELECT 1, COALESCE(MAX(id), 0) + 1 FROM messages;

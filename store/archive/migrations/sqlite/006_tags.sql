-- tags is the topic index of the archived posts: one row per topic (its
-- store.TagKey) a post carries, written in the transaction that saves the
-- post or an edit of it, and taken out with its tombstone. A topic's page
-- goes on here once its posts have left Redis's T: sets.
CREATE TABLE IF NOT EXISTS tags (
	tag TEXT    NOT NULL,
	mid INTEGER NOT NULL,
	PRIMARY KEY (tag, mid)
) WITHOUT ROWID;

-- tags_backfill is how far indexing the topics of the posts archived before
-- this migration has come: those with ids below next are still to do.
CREATE TABLE IF NOT EXISTS tags_backfill (
	id   INTEGER PRIMARY KEY,
	next INTEGER NOT NULL
);
INSERT INTO tags_backfill (id, next) SELECT 1, COALESCE(MAX(id), 0) + 1 FROM messages;

-- The likes of a user, newest first: its favourites once the likes:<mid>
-- sets and its own set have let go of the archived posts.
CREATE INDEX IF NOT EXISTS likes_user ON likes (uid, created, mid);

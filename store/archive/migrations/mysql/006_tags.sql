-- tags is the topic index of the archived posts: one row per topic (its
-- store.TagKey, compared byte for byte) a post carries, written in the
-- transaction that saves the post or an edit of it, and taken out with its
-- tombstone. A topic's page goes on here once its posts have left Redis's
-- T: sets. 255 bytes hold a topic of store.MaxTagLen characters.
CREATE TABLE IF NOT EXISTS tags (
	tag VARBINARY(255) NOT NULL,
	mid BIGINT         NOT NULL,
	PRIMARY KEY (tag, mid)
) ENGINE=InnoDB;
-- tags_backfill is how far indexing the topics of the posts archived before
-- this migration has come: those with ids below next are still to do.
CREATE TABLE IF NOT EXISTS tags_backfill (
	id   TINYINT NOT NULL,
	next BIGINT  NOT NULL,
	PRIMARY KEY (id)
) ENGINE=InnoDB;
INSERT INTO tags_backfill (id, next) SELECT 1, COALESCE(MAX(id), 0) + 1 FROM messages ON DUPLICATE KEY UPDATE next = next;
-- The likes of a user, newest first: its favourites once the likes:<mid>
-- sets and its own set have let go of the archived posts. (A second run
-- after a crash half way fails here only if the index exists: MariaDB
-- knows IF NOT EXISTS.)
CREATE INDEX IF NOT EXISTS likes_user ON likes (uid, created, mid);

-- messages holds every message the service ever archived, and a tombstone
-- for each deleted one (deleted = 1, content and JSON fields cleared); see
-- store.Archived. The indexes are inside CREATE TABLE so that the whole
-- migration is one statement that two servers may run at once. Text is
-- utf8mb4 whatever the server's default, so Chinese and emoji round-trip;
-- utf8mb4_bin because the archive never compares text, only stores it.
CREATE TABLE IF NOT EXISTS messages (
	id        BIGINT      NOT NULL,
	kind      VARCHAR(16) NOT NULL,
	author    BIGINT      NOT NULL,
	username  VARCHAR(64) NOT NULL,
	content   TEXT        NOT NULL,
	created   BIGINT      NOT NULL,
	repost_of BIGINT      NOT NULL DEFAULT 0,
	parent    BIGINT      NOT NULL DEFAULT 0,
	mentions  TEXT        NOT NULL,
	tags      TEXT        NOT NULL,
	media     TEXT        NOT NULL,
	deleted   TINYINT     NOT NULL DEFAULT 0,
	PRIMARY KEY (id),
	-- Posts of some authors, newest first (IDs with Authors).
	KEY messages_author (author, kind, deleted, id),
	-- Comments of a message, newest first (IDs with Parent), and their count.
	KEY messages_parent (parent, deleted, id),
	-- Reposts of a message, counted when read.
	KEY messages_repost_of (repost_of, deleted),
	-- Every post, newest first (IDs with Public).
	KEY messages_public (kind, deleted, id)
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_bin;

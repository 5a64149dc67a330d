-- messages holds every message the service ever archived, and a tombstone
-- for each deleted one (deleted = 1, content and JSON fields cleared); see
-- store.Archived. id is the rowid, so lookups by id need no extra index.
CREATE TABLE IF NOT EXISTS messages (
	id        INTEGER PRIMARY KEY,
	kind      TEXT    NOT NULL,
	author    INTEGER NOT NULL,
	username  TEXT    NOT NULL,
	content   TEXT    NOT NULL,
	created   INTEGER NOT NULL,
	repost_of INTEGER NOT NULL DEFAULT 0,
	parent    INTEGER NOT NULL DEFAULT 0,
	mentions  TEXT    NOT NULL DEFAULT '',
	tags      TEXT    NOT NULL DEFAULT '',
	media     TEXT    NOT NULL DEFAULT '',
	deleted   INTEGER NOT NULL DEFAULT 0
);

-- Posts of some authors, newest first (IDs with Authors).
CREATE INDEX IF NOT EXISTS messages_author ON messages (author, kind, deleted, id);

-- Comments of a message, newest first (IDs with Parent), and their count.
CREATE INDEX IF NOT EXISTS messages_parent ON messages (parent, deleted, id);

-- Reposts of a message, counted when read.
CREATE INDEX IF NOT EXISTS messages_repost_of ON messages (repost_of, deleted);

-- Every post, newest first (IDs with Public).
CREATE INDEX IF NOT EXISTS messages_public ON messages (kind, deleted, id);

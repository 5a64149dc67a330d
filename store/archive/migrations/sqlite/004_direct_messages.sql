-- direct_messages holds every private message the service ever archived,
-- and a tombstone for each deleted one (deleted = 1, content and media
-- cleared); see store.ArchivedMessage. user_low and user_high are the two
-- users of its conversation, the lower uid first, so that both users page
-- it through one index. id is the rowid.
CREATE TABLE IF NOT EXISTS direct_messages (
	id             INTEGER PRIMARY KEY,
	sender         INTEGER NOT NULL,
	recipient      INTEGER NOT NULL,
	sender_name    TEXT    NOT NULL,
	recipient_name TEXT    NOT NULL,
	content        TEXT    NOT NULL DEFAULT '',
	created        INTEGER NOT NULL,
	media          TEXT    NOT NULL DEFAULT '',
	deleted        INTEGER NOT NULL DEFAULT 0,
	user_low       INTEGER NOT NULL,
	user_high      INTEGER NOT NULL
);

-- The messages of a conversation, newest first, and their count.
CREATE INDEX IF NOT EXISTS direct_messages_conversation ON direct_messages (user_low, user_high, deleted, id);

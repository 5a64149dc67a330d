-- direct_messages holds every private message the service ever archived,
-- and a tombstone for each deleted one (deleted = 1, content and media
-- cleared); see store.ArchivedMessage. user_low and user_high are the two
-- users of its conversation, the lower uid first, so that both users page
-- it through one index. The index is inside CREATE TABLE so that the
-- migration is one statement that two servers may run at once.
CREATE TABLE IF NOT EXISTS direct_messages (
	id             BIGINT      NOT NULL,
	sender         BIGINT      NOT NULL,
	recipient      BIGINT      NOT NULL,
	sender_name    VARCHAR(64) NOT NULL,
	recipient_name VARCHAR(64) NOT NULL,
	content        TEXT        NOT NULL,
	created        BIGINT      NOT NULL,
	media          TEXT        NOT NULL,
	deleted        TINYINT     NOT NULL DEFAULT 0,
	user_low       BIGINT      NOT NULL,
	user_high      BIGINT      NOT NULL,
	PRIMARY KEY (id),
	-- The messages of a conversation, newest first, and their count.
	KEY direct_messages_conversation (user_low, user_high, deleted, id)
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_bin;

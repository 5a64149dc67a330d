-- search is the full-text index of posts (not comments, not tombstones):
-- one row per post, holding the tokens of the grams of its folded content
-- (search_grams.go), written with the post, an edit of it or its
-- tombstone. The engine is Mroonga (Groonga inside MariaDB): InnoDB's
-- FULLTEXT reads every match of a query before it sorts, seconds for a
-- common character over a million posts, where Mroonga takes milliseconds
-- (docs/performance.md). TokenDelimit takes each token whole, as written;
-- the index keeps no positions (flags NONE: a search asks which posts hold
-- a token, not where).
-- The server must have the plugin (mariadb-plugin-mroonga, INSTALL SONAME
-- 'ha_mroonga'); so that a server without it fails here, rather than make
-- the table InnoDB, engine substitution is off. The statements may run
-- again after a crash half way, so each one may.
SET SESSION sql_mode = CONCAT(@@SESSION.sql_mode, ',NO_ENGINE_SUBSTITUTION');
CREATE TABLE IF NOT EXISTS search (
	id    BIGINT   NOT NULL,
	grams LONGTEXT NOT NULL,
	PRIMARY KEY (id),
	FULLTEXT INDEX search_grams (grams) COMMENT 'tokenizer "TokenDelimit", flags "NONE"'
) ENGINE=Mroonga DEFAULT CHARSET=ascii COLLATE=ascii_bin;
-- search_backfill is how far indexing the posts archived before this
-- migration has come: those with ids below next are still to do, down to 1.
CREATE TABLE IF NOT EXISTS search_backfill (
	id   TINYINT NOT NULL,
	next BIGINT  NOT NULL,
	PRIMARY KEY (id)
) ENGINE=InnoDB;
INSERT INTO search_backfill (id, next) SELECT 1, COALESCE(MAX(id), 0) + 1 FROM messages ON DUPLICATE KEY UPDATE next = next;

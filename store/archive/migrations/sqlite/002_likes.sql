-- likes holds who likes which archived message, and since when (unix ms):
-- the archive's copy of the likes:<mid> sets, the only copy once a message
-- has left Redis. A message's likes_count is counted from it when read.
CREATE TABLE IF NOT EXISTS likes (
	mid     INTEGER NOT NULL,
	uid     INTEGER NOT NULL,
	created INTEGER NOT NULL,
	PRIMARY KEY (mid, uid)
) WITHOUT ROWID;

-- like_versions holds, for every (message, user) pair a like or an unlike
-- was saved for, the version of the newest of them: likes and unlikes
-- reach the archive out of order (each process's archiver saves its own
-- batches, a batch taken over is saved late), so one is applied only if its
-- version is at least the pair's. A pair whose like was taken away keeps its
-- row here (a tombstone), so an older like saved later cannot bring it back.
-- The likes table stays as it was: a like there with no row here counts as
-- version 0, and the likers, counts and liked-by-me are read from it alone.
CREATE TABLE IF NOT EXISTS like_versions (
	mid     INTEGER NOT NULL,
	uid     INTEGER NOT NULL,
	version INTEGER NOT NULL,
	PRIMARY KEY (mid, uid)
) WITHOUT ROWID;

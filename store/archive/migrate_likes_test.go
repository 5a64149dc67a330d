package archive

import (
	"context"
	"testing"

	"microblog/store"
)

// TestMigrateToLikeVersions opens an archive made before like versions
// (migrations 1 to 6, with a like in it): the like reads as before, counts
// as version 0, so a versioned unlike takes it away, and then an
// unversioned like saved late does not bring it back.
func TestMigrateToLikeVersions(t *testing.T) {
	forOldArchives(t, 6, []string{
		`INSERT INTO messages (id, kind, author, username, content, created, repost_of, parent, mentions, tags, media, deleted, edited, history)
		VALUES (1, 'post', 7, 'old', 'liked', 1700000000000, 0, 0, '[]', '[]', '[]', 0, 0, '')`,
		`INSERT INTO likes (mid, uid, created) VALUES (1, 8, 1700000000001)`,
	}, func(t *testing.T, db *DB, _ []migration) {
		ctx := context.Background()
		liked := func() int {
			got, err := db.Liked(ctx, 8, []int64{1})
			if err != nil {
				t.Fatal(err)
			}
			return len(got)
		}
		if n := liked(); n != 1 {
			t.Fatalf("the like made before versions reads %d, want 1", n)
		}
		if err := db.SaveLikes(ctx, nil, []store.ArchivedLike{{MID: 1, UID: 8, Version: 1}}); err != nil {
			t.Fatal(err)
		}
		if err := db.SaveLikes(ctx, []store.ArchivedLike{{MID: 1, UID: 8, At: 1700000000001}}, nil); err != nil {
			t.Fatal(err)
		}
		if n := liked(); n != 0 {
			t.Errorf("after a versioned unlike and an unversioned like: %d likes, want 0", n)
		}
	})
}

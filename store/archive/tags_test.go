package archive_test

import (
	"context"
	"fmt"
	"slices"
	"testing"

	"microblog/store"
	"microblog/store/archive"
)

// tagged is a post carrying topics, as Redis spells them in its JSON.
func tagged(id int64, tags string) store.Archived {
	m := post(id, 1, "tagged")
	m.Tags = tags
	return m
}

// tagIDs are the ids of topic key's posts below before (0: no bound).
func tagIDs(t *testing.T, db *archive.DB, key string, before int64) []int64 {
	t.Helper()
	ids, err := db.IDs(context.Background(), store.ArchiveQuery{Tag: key, Before: before, Limit: 100})
	if err != nil {
		t.Fatalf("ids of topic %q: %v", key, err)
	}
	return ids
}

// TestTagIDs: a topic selects the posts and comments carrying it in any
// letter case, newest first, not the deleted posts; an edit moves a post
// between topics, a replay or an older edit does not.
func TestTagIDs(t *testing.T) {
	forEngines(t, func(t *testing.T, db *archive.DB) {
		c := comment(4, 1, 1)
		c.Tags = `["go"]`
		for range 2 { // the second time is a replay
			save(t, db, []store.Archived{tagged(1, `["Go","话题"]`), tagged(2, `["GO","go"]`), tagged(3, `["rust"]`), c, tagged(5, `["go"]`)}, nil)
		}
		save(t, db, nil, []store.Archived{tombstone(post(5, 1, ""))})
		if got := tagIDs(t, db, "go", 0); !slices.Equal(got, []int64{4, 2, 1}) {
			t.Errorf("topic go: %v, want [4 2 1]", got)
		}
		if got := tagIDs(t, db, "go", 2); !slices.Equal(got, []int64{1}) {
			t.Errorf("topic go below 2: %v, want [1]", got)
		}
		if got := tagIDs(t, db, "话题", 0); !slices.Equal(got, []int64{1}) {
			t.Errorf("topic 话题: %v, want [1]", got)
		}
		e := edited(tagged(1, ""), "now rust", 2000, "[]")
		e.Tags = `["Rust"]`
		saveEdits(t, db, e)
		older := edited(tagged(1, ""), "older", 1000, "[]")
		older.Tags = `["go"]`
		saveEdits(t, db, older, e)
		if got := tagIDs(t, db, "go", 0); !slices.Equal(got, []int64{4, 2}) {
			t.Errorf("topic go after the edit: %v, want [4 2]", got)
		}
		if got := tagIDs(t, db, "rust", 0); !slices.Equal(got, []int64{3, 1}) {
			t.Errorf("topic rust after the edit: %v, want [3 1]", got)
		}
		in := edited(tagged(2, ""), "in place", 3000, "[]")
		in.Tags = `["later"]`
		if ok, err := db.Edit(context.Background(), in, 0); !ok || err != nil {
			t.Fatalf("edit in place: %v, %v", ok, err)
		}
		if got := tagIDs(t, db, "later", 0); !slices.Equal(got, []int64{2}) {
			t.Errorf("topic later after an edit in place: %v, want [2]", got)
		}
		if got := tagIDs(t, db, "go", 0); !slices.Equal(got, []int64{4}) {
			t.Errorf("topic go after the edit in place: %v, want the comment [4]", got)
		}
	})
}

// TestLikesPages: a message's likers and a user's likes page newest first
// by (time, id), across ties, and a user's skip deleted messages; Likers
// reads those of many messages at once.
func TestLikesPages(t *testing.T) {
	forEngines(t, func(t *testing.T, db *archive.DB) {
		ctx := context.Background()
		save(t, db, []store.Archived{post(1, 1, "a"), post(2, 1, "b"), post(3, 1, "c")}, nil)
		likes := []store.ArchivedLike{{MID: 1, UID: 7, At: 10}, {MID: 1, UID: 8, At: 11}, {MID: 1, UID: 9, At: 11},
			{MID: 2, UID: 7, At: 12}, {MID: 3, UID: 7, At: 13}}
		if err := db.SaveLikes(ctx, likes, nil); err != nil {
			t.Fatal(err)
		}
		save(t, db, nil, []store.Archived{tombstone(post(3, 1, ""))})
		page := func(q store.LikeQuery) string {
			t.Helper()
			var out []string
			for range 10 {
				got, err := db.Likes(ctx, q)
				if err != nil {
					t.Fatal(err)
				}
				for _, l := range got {
					out = append(out, fmt.Sprintf("%d/%d@%d", l.MID, l.UID, l.At))
				}
				if len(got) < q.Limit {
					break
				}
				last := got[len(got)-1]
				q.BeforeAt, q.BeforeID = last.At, last.UID
				if q.UID > 0 {
					q.BeforeID = last.MID
				}
			}
			return fmt.Sprint(out)
		}
		if got, want := page(store.LikeQuery{MID: 1, Limit: 2}), "[1/9@11 1/8@11 1/7@10]"; got != want {
			t.Errorf("likers of 1: %s, want %s", got, want)
		}
		if got, want := page(store.LikeQuery{UID: 7, Limit: 1}), "[2/7@12 1/7@10]"; got != want {
			t.Errorf("likes of user 7: %s, want %s", got, want)
		}
		likers, err := db.Likers(ctx, []int64{1, 2, 4})
		if err != nil || len(likers) != 2 || len(likers[1]) != 3 || !slices.Equal(likers[2], []int64{7}) {
			t.Errorf("likers of 1, 2 and 4: %v, %v", likers, err)
		}
		if _, err := db.Likes(ctx, store.LikeQuery{MID: 1, UID: 7, Limit: 1}); err == nil {
			t.Error("likes of a message and a user at once: no error")
		}
	})
}

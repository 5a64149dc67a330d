package archive_test

import (
	"context"
	"fmt"
	"slices"
	"testing"

	"microblog/store"
	"microblog/store/archive"
)

// TestLikesAnyOrder saves the likes and unlikes of one pair, each in a call
// of its own, in every order: the pair ends as its newest action (the
// greatest version) left it, in the likers, the count and liked-by-me.
func TestLikesAnyOrder(t *testing.T) {
	forEngines(t, func(t *testing.T, db *archive.DB) {
		ctx := context.Background()
		save(t, db, []store.Archived{post(1, 1, "liked and not")}, nil)
		uid, likers := int64(100), []int64(nil)
		for _, actions := range [][]bool{ // liked, by version 1, 2, …
			{true, false, true},
			{true, false, true, false},
			{false, true},
		} {
			for _, order := range permutations(len(actions)) {
				uid++
				for _, i := range order {
					l := []store.ArchivedLike{{MID: 1, UID: uid, At: int64(1000 + i), Version: int64(i + 1)}}
					likes, unlikes := l, []store.ArchivedLike(nil)
					if !actions[i] {
						likes, unlikes = unlikes, likes
					}
					if err := db.SaveLikes(ctx, likes, unlikes); err != nil {
						t.Fatal(err)
					}
				}
				want := actions[len(actions)-1]
				if want {
					likers = append(likers, uid)
				}
				if got := likes(t, db, uid, 1); got != want {
					t.Errorf("actions %v saved in the order %v: liked %v, want %v", actions, order, got, want)
				}
			}
		}
		assertLikers(t, db, 1, likers)
	})
}

// TestLikesNewestInOneCall: of a like and an unlike of one pair in one call,
// the newer wins, whichever list it is in; an unversioned like (version 0,
// as saved before versions) does not undo a versioned unlike, and a
// versioned unlike takes an unversioned like away.
func TestLikesNewestInOneCall(t *testing.T) {
	forEngines(t, func(t *testing.T, db *archive.DB) {
		ctx := context.Background()
		save(t, db, []store.Archived{post(1, 1, "p")}, nil)
		for _, c := range []struct {
			uid          int64
			like, unlike int64
			want         bool
		}{{7, 2, 1, true}, {8, 1, 2, false}} {
			err := db.SaveLikes(ctx, []store.ArchivedLike{{MID: 1, UID: c.uid, At: 5, Version: c.like}},
				[]store.ArchivedLike{{MID: 1, UID: c.uid, Version: c.unlike}})
			if err != nil {
				t.Fatal(err)
			}
			if got := likes(t, db, c.uid, 1); got != c.want {
				t.Errorf("like v%d and unlike v%d in one call: liked %v, want %v", c.like, c.unlike, got, c.want)
			}
		}
		if err := db.SaveLikes(ctx, []store.ArchivedLike{{MID: 1, UID: 8, At: 6}, {MID: 1, UID: 9, At: 6}}, nil); err != nil {
			t.Fatal(err)
		}
		if err := db.SaveLikes(ctx, nil, []store.ArchivedLike{{MID: 1, UID: 9, Version: 1}}); err != nil {
			t.Fatal(err)
		}
		assertLikers(t, db, 1, []int64{7})
	})
}

// likes tells whether uid likes mid, as Liked, Likes and the count say; it
// fails the test when they disagree.
func likes(t *testing.T, db *archive.DB, uid, mid int64) bool {
	t.Helper()
	ctx := context.Background()
	liked, err := db.Liked(ctx, uid, []int64{mid})
	if err != nil {
		t.Fatal(err)
	}
	ls, err := db.Likes(ctx, store.LikeQuery{UID: uid, Limit: 10})
	if err != nil {
		t.Fatal(err)
	}
	if len(liked) != len(ls) {
		t.Fatalf("user %d: Liked %v, Likes %v", uid, liked, ls)
	}
	return len(liked) == 1
}

// assertLikers checks the likers and the likes_count of mid.
func assertLikers(t *testing.T, db *archive.DB, mid int64, want []int64) {
	t.Helper()
	got, err := db.Likers(context.Background(), []int64{mid})
	if err != nil {
		t.Fatal(err)
	}
	likers := slices.Sorted(slices.Values(got[mid]))
	if fmt.Sprint(likers) != fmt.Sprint(want) {
		t.Errorf("likers of %d: %v, want %v", mid, likers, want)
	}
	if n := messages(t, db, mid)[mid].LikesCount; n != int64(len(want)) {
		t.Errorf("likes_count of %d: %d, want %d", mid, n, len(want))
	}
}

// permutations returns every order of 0..n-1.
func permutations(n int) [][]int {
	if n == 0 {
		return [][]int{{}}
	}
	var out [][]int
	for _, p := range permutations(n - 1) {
		for i := 0; i <= len(p); i++ {
			out = append(out, slices.Insert(slices.Clone(p), i, n-1))
		}
	}
	return out
}

// TestLikeNowWinsOverSavedVersions: a like or unlike made now (LikeNow)
// wins over the pair's actions saved before, even those of a newer version
// (a process whose clock runs ahead), and the entry queued for it with its
// own version, saved after, changes nothing; it tells whether the like
// changed.
func TestLikeNowWinsOverSavedVersions(t *testing.T) {
	forEngines(t, func(t *testing.T, db *archive.DB) {
		ctx := context.Background()
		save(t, db, []store.Archived{post(1, 1, "liked ahead, undone behind")}, nil)
		fast := store.ArchivedLike{MID: 1, UID: 100, At: 2000, Version: 2000}
		if err := db.SaveLikes(ctx, []store.ArchivedLike{fast}, nil); err != nil {
			t.Fatal(err)
		}
		slow := store.ArchivedLike{MID: 1, UID: 100, At: 1500, Version: 1500}
		for i, step := range []struct {
			liked, changed bool
		}{{false, true}, {false, false}, {true, true}, {true, false}, {false, true}} {
			changed, err := db.LikeNow(ctx, slow, step.liked)
			if err != nil || changed != step.changed {
				t.Fatalf("step %d, LikeNow(%v): changed %v (%v), want %v", i, step.liked, changed, err, step.changed)
			}
			// The entry queued with it, and the fast one, saved again.
			ls, unls := []store.ArchivedLike{slow}, []store.ArchivedLike(nil)
			if !step.liked {
				ls, unls = unls, ls
			}
			if err := db.SaveLikes(ctx, ls, unls); err != nil {
				t.Fatal(err)
			}
			if err := db.SaveLikes(ctx, []store.ArchivedLike{fast}, nil); err != nil {
				t.Fatal(err)
			}
			if got := likes(t, db, 100, 1); got != step.liked {
				t.Fatalf("step %d, LikeNow(%v): liked %v after the queued entries", i, step.liked, got)
			}
		}
	})
}

package redisdb

import (
	"testing"

	"microblog/store"
)

// TestMarkers: a marker is left out until set, then keeps the last id,
// counts its versions and when it was set, per timeline.
func TestMarkers(t *testing.T) {
	parallel(t)
	s := newTestStore(t)
	uid := s.user("alice")
	both := []string{store.MarkerHome, store.MarkerNotifications}
	if ms, err := s.Markers(s.ctx, uid, both); err != nil || len(ms) != 0 {
		t.Fatalf("markers before any: %v %v", ms, err)
	}
	for i, id := range []int64{7, 9} {
		m, err := s.SetMarker(s.ctx, uid, store.MarkerHome, id)
		if err != nil || m.LastReadID != id || m.Version != int64(i+1) || m.UpdatedAt == 0 {
			t.Fatalf("set home %d: %+v %v", id, m, err)
		}
	}
	ms, err := s.Markers(s.ctx, uid, both)
	if err != nil || len(ms) != 1 || ms[0].Timeline != store.MarkerHome || ms[0].LastReadID != 9 || ms[0].Version != 2 {
		t.Errorf("markers = %+v %v", ms, err)
	}
}

// TestDismissNotification: a dismissed notification is gone, with its
// undo field (taking the like back later finds nothing to take back); an
// unknown one is not found; clearing removes the rest.
func TestDismissNotification(t *testing.T) {
	parallel(t)
	s := newTestStore(t)
	alice, bob := s.user("alice"), s.user("bob")
	p := s.post(store.NewPost{Author: alice, Content: "hello"})
	s.follow(bob, alice)
	if err := s.Like(s.ctx, bob, p.ID, true); err != nil {
		t.Fatal(err)
	}
	pg, err := s.Notifications(s.ctx, alice, store.PageQuery{})
	if err != nil || len(pg.Items) != 2 || pg.Items[0].Kind != store.NotifyLike {
		t.Fatalf("notifications = %+v %v", pg.Items, err)
	}
	if err := s.DismissNotification(s.ctx, alice, pg.Items[0].ID); err != nil {
		t.Fatal(err)
	}
	wantCode(t, s.DismissNotification(s.ctx, alice, pg.Items[0].ID), store.ErrNotFound, store.CodeNotFound)
	if n, _ := s.rdb.HLen(s.ctx, s.keys.Notes(alice)).Result(); n != 2 { // the follow and its undo field
		t.Errorf("notes hold %d fields after the dismiss, want 2", n)
	}
	if err := s.Like(s.ctx, bob, p.ID, false); err != nil {
		t.Fatal(err)
	}
	if pg, _ = s.Notifications(s.ctx, alice, store.PageQuery{}); len(pg.Items) != 1 || pg.Items[0].Kind != store.NotifyFollow {
		t.Errorf("after dismiss and unlike: %+v", pg.Items)
	}
	if err := s.ClearNotifications(s.ctx, alice); err != nil {
		t.Fatal(err)
	}
	if pg, _ = s.Notifications(s.ctx, alice, store.PageQuery{}); len(pg.Items) != 0 {
		t.Errorf("after clear: %+v", pg.Items)
	}
}

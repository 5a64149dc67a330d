package redisdb

import (
	"errors"
	"sync"
	"testing"

	"microblog/store"
)

// TestFedRemoteActor: a remote actor is a user named name@domain, found by
// its name in any letter case and by its actor id; saved again it keeps
// its uid and takes the new profile; two concurrent first saves agree;
// forgotten, it is gone with its name.
func TestFedRemoteActor(t *testing.T) {
	parallel(t)
	s := newTestStore(t)
	a := store.RemoteActor{ID: "https://social.example/users/Bob", Handle: "Bob@social.example",
		Inbox: "https://social.example/users/Bob/inbox", SharedInbox: "https://social.example/inbox",
		KeyID: "https://social.example/users/Bob#main-key", KeyPEM: "PEM", URL: "https://social.example/@Bob",
		Name: "Bob B.", Bio: "hi", Avatar: "https://social.example/a.png"}
	var wg sync.WaitGroup
	uids := make([]int64, 4)
	for i := range uids {
		wg.Go(func() {
			uid, err := s.SaveRemoteActor(s.ctx, a)
			if err != nil {
				t.Error(err)
			}
			uids[i] = uid
		})
	}
	wg.Wait()
	for _, u := range uids[1:] {
		if u != uids[0] || u == 0 {
			t.Fatalf("concurrent saves disagree: %v", uids)
		}
	}
	uid := uids[0]
	got, err := s.UIDByName(s.ctx, "bob@SOCIAL.example")
	if err != nil || got != uid {
		t.Fatalf("by name: %d %v, want %d", got, err, uid)
	}
	u, err := s.User(s.ctx, uid, 0)
	if err != nil || u.Username != "Bob@social.example" || !u.Remote || u.URL != a.URL || u.DisplayName != "Bob B." ||
		u.AvatarURL == nil || *u.AvatarURL != a.Avatar {
		t.Fatalf("user: %+v %v", u, err)
	}
	a.Name, a.Locked = "Robert", true
	if again, err := s.SaveRemoteActor(s.ctx, a); err != nil || again != uid {
		t.Fatalf("save again: %d %v", again, err)
	}
	ra, err := s.RemoteActorByID(s.ctx, a.ID)
	if err != nil || ra.UID != uid || ra.Name != "Robert" || !ra.Locked || ra.SharedInbox != a.SharedInbox || ra.DeliveryInbox() != a.SharedInbox {
		t.Fatalf("by id: %+v %v", ra, err)
	}
	if u, _ := s.User(s.ctx, uid, 0); !u.Protected {
		t.Error("a locked actor is not protected")
	}
	if _, err := s.RemoteActorByUID(s.ctx, s.user("alice")); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("a local user as remote: %v", err)
	}
	if err := s.ForgetRemoteActor(s.ctx, uid); err != nil {
		t.Fatal(err)
	}
	if _, err := s.RemoteActorByID(s.ctx, a.ID); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("forgotten actor: %v", err)
	}
	if _, err := s.UIDByName(s.ctx, "bob@social.example"); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("forgotten name: %v", err)
	}
}

// TestFedKeysSeenBlocks: a local key is made once whoever asks first;
// an activity id is new once; domain blocks cover subdomains and ports.
func TestFedKeysSeenBlocks(t *testing.T) {
	parallel(t)
	s := newTestStore(t)
	made := 0
	var mu sync.Mutex
	mk := func() (string, string, error) {
		mu.Lock()
		made++
		n := made
		mu.Unlock()
		return "priv" + string(rune('0'+n)), "pub" + string(rune('0'+n)), nil
	}
	var wg sync.WaitGroup
	privs := make([]string, 4)
	for i := range privs {
		wg.Go(func() {
			p, _, err := s.LocalKey(s.ctx, 7, mk)
			if err != nil {
				t.Error(err)
			}
			privs[i] = p
		})
	}
	wg.Wait()
	for _, p := range privs[1:] {
		if p != privs[0] {
			t.Fatalf("keys disagree: %v", privs)
		}
	}
	if first, _ := s.FirstSeen(s.ctx, "https://x.example/a/1"); !first {
		t.Error("a new activity is not new")
	}
	if first, _ := s.FirstSeen(s.ctx, "https://x.example/a/1"); first {
		t.Error("a seen activity is new again")
	}
	if err := s.ForgetSeen(s.ctx, "https://x.example/a/1"); err != nil {
		t.Fatal(err)
	}
	if first, _ := s.FirstSeen(s.ctx, "https://x.example/a/1"); !first {
		t.Error("a forgotten activity is not new")
	}
	if err := s.BlockDomain(s.ctx, "Spam.Example", true); err != nil {
		t.Fatal(err)
	}
	for host, want := range map[string]bool{"spam.example": true, "a.spam.example:8443": true, "notspam.example": false, "example": false} {
		if got, err := s.DomainBlocked(s.ctx, host); err != nil || got != want {
			t.Errorf("DomainBlocked(%s) = %v %v, want %v", host, got, err, want)
		}
	}
	if err := s.BlockDomain(s.ctx, "not a domain", true); !errors.Is(err, store.ErrInvalid) {
		t.Errorf("bad domain: %v", err)
	}
	if ds, _ := s.DomainBlocks(s.ctx); len(ds) != 1 || ds[0] != "spam.example" {
		t.Errorf("blocks: %v", ds)
	}
}

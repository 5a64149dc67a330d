package redisdb

import (
	"errors"
	"fmt"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"microblog/store"
	"microblog/store/storetest"
)

// TestMailLinksExpireAndAreSingleUse drives the store's side of a
// forgotten password with its clock held: a confirmation link confirms
// its address once; a reset link is issued for a confirmed address only,
// works until its hour is up and not a millisecond after, and once; an
// address no account confirmed issues nothing.
func TestMailLinksExpireAndAreSingleUse(t *testing.T) {
	parallel(t)
	var now atomic.Int64
	now.Store(time.Date(2026, 3, 1, 8, 0, 0, 0, time.UTC).UnixMilli())
	s := newTestStoreWith(t, Options{Now: func() time.Time { return time.UnixMilli(now.Load()) }})
	uid := s.user("mailer")
	const addr = "mailer@example.com"
	issue := func(job store.MailJob) (store.MailLink, bool) {
		t.Helper()
		job.At = now.Load()
		l, ok, err := s.IssueMailLink(s.ctx, job)
		if err != nil {
			t.Fatal(err)
		}
		return l, ok
	}

	if _, ok := issue(store.MailJob{Kind: store.MailReset, To: addr}); ok {
		t.Fatal("a reset link for an address nobody confirmed")
	}
	if _, err := s.SetEmail(s.ctx, uid, addr, "en"); err != nil {
		t.Fatal(err)
	}
	if _, ok := issue(store.MailJob{Kind: store.MailReset, To: addr}); ok {
		t.Fatal("a reset link for an address not confirmed yet")
	}
	confirm, ok := issue(store.MailJob{Kind: store.MailConfirm, UID: uid, To: addr})
	if !ok {
		t.Fatal("no confirmation link")
	}
	now.Add(store.ConfirmValid.Milliseconds() - 1)
	if _, err := s.ConfirmEmail(s.ctx, confirm.Token); err != nil {
		t.Fatalf("confirm within its day: %v", err)
	}
	if _, err := s.ConfirmEmail(s.ctx, confirm.Token); !errors.Is(err, store.ErrInvalidToken) {
		t.Fatalf("confirm twice: %v", err)
	}

	reset, ok := issue(store.MailJob{Kind: store.MailReset, To: "MAILER@example.com"})
	if !ok || reset.To != addr || reset.Username != "mailer" {
		t.Fatalf("reset link %+v, %v", reset, ok)
	}
	noneHolds(t, s, reset.Token)
	now.Add(store.ResetValid.Milliseconds())
	if _, err := s.CheckMailToken(s.ctx, store.MailReset, reset.Token); !errors.Is(err, store.ErrInvalidToken) {
		t.Fatalf("check a link an hour old: %v", err)
	}
	if err := s.ResetPassword(s.ctx, reset.Token, "a new password"); !errors.Is(err, store.ErrInvalidToken) {
		t.Fatalf("reset with a link an hour old: %v", err)
	}

	reset, _ = issue(store.MailJob{Kind: store.MailReset, To: addr})
	now.Add(store.ResetValid.Milliseconds() - 1)
	if _, err := s.CheckMailToken(s.ctx, store.MailReset, reset.Token); err != nil {
		t.Fatalf("check a link within its hour: %v", err)
	}
	// Someone guesses at the password from many addresses: the account
	// backs off for every address.
	guard := store.Limit{N: 3, Per: time.Hour}
	for i := range 9 {
		s.Login(s.ctx, "mailer", "a wrong guess", store.Attempt{Client: fmt.Sprintf("198.51.100.%d", i), Guard: guard})
	}
	var rl *store.RateLimitError
	if _, _, err := s.Login(s.ctx, "mailer", "password123", store.Attempt{Client: "203.0.113.9", Guard: guard}); !errors.As(err, &rl) {
		t.Fatalf("the account does not back off after 9 wrong guesses: %v", err)
	}

	if err := s.ResetPassword(s.ctx, reset.Token, "a new password"); err != nil {
		t.Fatalf("reset within the hour: %v", err)
	}
	if err := s.ResetPassword(s.ctx, reset.Token, "another password"); !errors.Is(err, store.ErrInvalidToken) {
		t.Fatalf("reset twice: %v", err)
	}
	// The guesses were at the old password: the new one logs in at once.
	if _, _, err := s.Login(s.ctx, "mailer", "a new password", store.Attempt{Client: "203.0.113.9", Guard: guard}); err != nil {
		t.Fatalf("log in with the new password: %v", err)
	}
}

// noneHolds fails when a key of s, or a value of its strings, hashes or
// streams, holds secret: a link's token is kept only as its hash.
func noneHolds(t *testing.T, s testStore, secret string) {
	t.Helper()
	for _, k := range storetest.Keys(t, s.rdb, "*") {
		var vals []string
		switch s.rdb.Type(s.ctx, k).Val() {
		case "string":
			vals = append(vals, s.rdb.Get(s.ctx, k).Val())
		case "hash":
			for f, v := range s.rdb.HGetAll(s.ctx, k).Val() {
				vals = append(vals, f, v)
			}
		case "stream":
			for _, m := range s.rdb.XRange(s.ctx, k, "-", "+").Val() {
				vals = append(vals, fmt.Sprint(m.Values))
			}
		}
		for _, v := range append(vals, k) {
			if strings.Contains(v, secret) {
				t.Fatalf("the token is stored in the clear in %s", k)
			}
		}
	}
}

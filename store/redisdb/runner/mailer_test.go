package runner

import (
	"context"
	"errors"
	"slices"
	"sync"
	"testing"
	"time"

	"microblog/store"
	"microblog/store/redisdb"
)

// TestMailerRetriesUntilSent: a mail the SMTP server does not take stays
// queued, and is handed to Deliver again (after ClaimIdle) until it goes;
// then it leaves the queue. Jobs are delivered in the order they came.
func TestMailerRetriesUntilSent(t *testing.T) {
	parallel(t)
	s := newIdleStore(t, redisdb.Options{})
	u, _, err := s.Register(s.ctx, "mailbox", "password123")
	if err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	var tries []string
	failures := 2
	deliver := func(_ context.Context, job store.MailJob) error {
		mu.Lock()
		defer mu.Unlock()
		tries = append(tries, job.Kind+" "+job.To)
		if job.Kind == store.MailConfirm && failures > 0 {
			failures--
			return errors.New("421 try again later")
		}
		return nil
	}
	if err := s.RequestPasswordReset(s.ctx, "first@example.com", "en"); err != nil {
		t.Fatal(err)
	}
	if _, err := s.SetEmail(s.ctx, u.ID, "second@example.com", "zh"); err != nil {
		t.Fatal(err)
	}
	s.run(NewMailer(s.Store, MailerOptions{Deliver: deliver, ClaimIdle: 50 * time.Millisecond}).Run)
	deadline := time.Now().Add(time.Minute) // against a hang
	for {
		n, err := s.rdb.XLen(s.ctx, s.keys.MailQueue()).Result()
		if err != nil {
			t.Fatal(err)
		}
		if n == 0 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("%d mail jobs left in the queue; tries %v", n, tries)
		}
		time.Sleep(10 * time.Millisecond)
	}
	mu.Lock()
	defer mu.Unlock()
	want := []string{"reset first@example.com", "confirm second@example.com", "confirm second@example.com", "confirm second@example.com"}
	if !slices.Equal(tries, want) {
		t.Fatalf("deliveries %v, want %v", tries, want)
	}
}

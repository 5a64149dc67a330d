package fed

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"net/url"
	"strings"
	"time"

	"github.com/redis/go-redis/v9"

	"microblog/store"
	"microblog/store/redisdb/schema"
)

// Queue is the delivery queue of federation (docs/federation.md
// "Delivery"): EnqueueDelivery writes an activity's body once and one job
// per distinct inbox onto a stream, in one script; the deliverers
// (runner/deliverer.go) send them. A redisdb.Store embeds it.
type Queue struct {
	rdb  redis.UniversalClient
	keys schema.Keys
	now  func() int64
}

// NewQueue returns the delivery queue on rdb; now is the store's clock
// (unix ms).
func NewQueue(rdb redis.UniversalClient, keys schema.Keys, now func() int64) *Queue {
	return &Queue{rdb: rdb, keys: keys, now: now}
}

// enqueueSlice is how many jobs one script queues at most.
const enqueueSlice = 2000

// BodyTTL bounds how long a delivery's body stays in Redis: past the last
// retry of its jobs (26 hours at most), should one never be settled.
const BodyTTL = 72 * time.Hour

// MaxDeliveryBody bounds an activity's JSON: no activity the service
// writes comes near it.
const MaxDeliveryBody = 1 << 20

// EnqueueDelivery queues d, one job per distinct inbox (absolute http(s)
// URLs; others are skipped). A delivery with no inbox queues nothing.
func (q *Queue) EnqueueDelivery(ctx context.Context, d store.Delivery) error {
	if len(d.Body) == 0 || len(d.Body) > MaxDeliveryBody {
		return store.Invalid(store.CodeInvalidBody, "activity body empty or too large")
	}
	inboxes := DistinctInboxes(d.Inboxes)
	if len(inboxes) == 0 {
		return nil
	}
	ref := newRef()
	first := q.now()
	jobs := make([]any, len(inboxes))
	for i, in := range inboxes {
		jobs[i] = schema.DeliveryJobRef{Ref: ref, First: first, Inbox: in}.String()
	}
	// A big delivery goes in slices, so that no one script holds Redis long;
	// the first writes the body with the count of every job.
	for i := 0; i < len(jobs); i += enqueueSlice {
		part := jobs[i:min(i+enqueueSlice, len(jobs))]
		var err error
		if i == 0 {
			args := append([]any{schema.FedJobField, d.Body, d.ID, d.Signer, len(jobs), BodyTTL.Milliseconds(), d.Key}, part...)
			err = schema.FedEnqueue.Run(ctx, q.rdb, []string{q.keys.FedDeliveries(), q.keys.FedDeliveryBody(ref)}, args...).Err()
		} else {
			err = schema.FedEnqueueMore.Run(ctx, q.rdb, []string{q.keys.FedDeliveries()}, append([]any{schema.FedJobField}, part...)...).Err()
		}
		if err != nil {
			return fmt.Errorf("store: queue delivery: %w", err)
		}
	}
	return nil
}

// DistinctInboxes are the inboxes once each, in their first order, without
// what is not an absolute http(s) URL.
func DistinctInboxes(inboxes []string) []string {
	seen := make(map[string]bool, len(inboxes))
	var out []string
	for _, in := range inboxes {
		in = strings.TrimSpace(in)
		u, err := url.Parse(in)
		if err != nil || (u.Scheme != "https" && u.Scheme != "http") || u.Host == "" || strings.Contains(in, "|") || seen[in] {
			continue
		}
		seen[in] = true
		out = append(out, in)
	}
	return out
}

// newRef names a queued delivery: random, so that no two processes pick the
// same.
func newRef() string {
	var b [12]byte
	rand.Read(b[:])
	return hex.EncodeToString(b[:])
}

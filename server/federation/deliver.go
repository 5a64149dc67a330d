package federation

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net/http"
	"slices"
	"time"

	"microblog/store"
)

// Deliver POSTs one activity to one inbox, signed with the key of local
// user signer (0: the instance actor): what the delivery queue's runner
// calls for each of its jobs. A 2xx is done; any other answer or failure
// is an error, to be retried by the caller.
func (s *Service) Deliver(ctx context.Context, signer int64, inbox string, body []byte) error {
	u, err := s.checkPeer(ctx, inbox)
	if err != nil {
		return err
	}
	ctx, cancel := context.WithTimeout(ctx, s.opt.FetchTimeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, u.String(), bytes.NewReader(body))
	if err != nil {
		return err
	}
	req.Header.Set("Content-Type", `application/activity+json`)
	req.Header.Set("Accept", activityAccept)
	req.Header.Set("User-Agent", s.userAgent())
	if err := s.Sign(ctx, req, signer, body); err != nil {
		return err
	}
	resp, err := s.client.Do(req)
	if err != nil {
		return fmt.Errorf("deliver to %s: %w", u.Host, err)
	}
	defer resp.Body.Close()
	io.Copy(io.Discard, io.LimitReader(resp.Body, 64<<10))
	if resp.StatusCode/100 != 2 {
		return fmt.Errorf("deliver to %s: answered %d", u.Host, resp.StatusCode)
	}
	return nil
}

// direct is the stand-in Deliverer while no durable queue is wired: each
// inbox is sent to at once, in its own goroutine, a few times over a
// minute, and forgotten after.
type direct struct{ s *Service }

// EnqueueDelivery sends d to each of its distinct inboxes in the background.
func (d direct) EnqueueDelivery(ctx context.Context, dl store.Delivery) error {
	inboxes := slices.Clone(dl.Inboxes)
	slices.Sort(inboxes)
	for _, inbox := range slices.Compact(inboxes) {
		go func() {
			ctx := context.WithoutCancel(ctx)
			wait := time.Second
			for try := 0; try < 4; try++ {
				var err error
				if dl.Key != "" { // a deleted account's Delete, with its key
					err = d.s.DeliverJob(ctx, store.DeliveryJob{ID: dl.ID, Signer: dl.Signer, Body: dl.Body, Key: dl.Key, Inbox: inbox})
				} else {
					err = d.s.Deliver(ctx, dl.Signer, inbox, dl.Body)
				}
				if err == nil {
					return
				}
				d.s.opt.Logger.Warn("federation: delivery failed", "activity", dl.ID, "inbox", inbox, "err", err)
				time.Sleep(wait)
				wait *= 4
			}
		}()
	}
	return nil
}

package federation

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"time"

	"microblog/store"
)

// DeliverJob sends one job of the delivery queue (runner.Deliverer's
// Deliver): the activity POSTed to its inbox as application/activity+json,
// signed by its signer's key (draft-cavage rsa-sha256 over (request-target),
// host, date and digest), through the safe client. A 2xx is done; a 4xx
// other than 408 and 429 (410 too), a refused address, a blocked domain or
// a redirect is refused for good (store.ErrDeliveryRefused); anything else
// (5xx, 408, 429, a network failure, the timeout) is tried again later.
func (s *Service) DeliverJob(ctx context.Context, job store.DeliveryJob) error {
	u, err := s.checkPeer(ctx, job.Inbox)
	if err != nil {
		if errors.Is(err, store.ErrUnavailable) {
			return err
		}
		return fmt.Errorf("%w: %v", store.ErrDeliveryRefused, err)
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, u.String(), bytes.NewReader(job.Body))
	if err != nil {
		return fmt.Errorf("%w: %v", store.ErrDeliveryRefused, err)
	}
	req.Header.Set("Content-Type", "application/activity+json")
	req.Header.Set("Accept", activityAccept)
	req.Header.Set("User-Agent", s.userAgent())
	sign := s.Sign
	if job.Key != "" { // a deleted account's Delete, with its key
		sign = func(ctx context.Context, req *http.Request, uid int64, body []byte) error {
			k, err := parseLocalKey(job.Key, "")
			if err != nil {
				return err
			}
			return signRequest(req, body, s.KeyID(uid), k)
		}
	}
	if err := sign(ctx, req, job.Signer, job.Body); err != nil {
		return fmt.Errorf("sign delivery: %w", err)
	}
	resp, err := s.deliverClient.Do(req)
	if err != nil {
		if errors.Is(err, errRefusedAddress) {
			return fmt.Errorf("%w: %v", store.ErrDeliveryRefused, err)
		}
		return fmt.Errorf("deliver to %s: %w", u.Host, err)
	}
	defer resp.Body.Close()
	io.Copy(io.Discard, io.LimitReader(resp.Body, 64<<10))
	switch c := resp.StatusCode; {
	case c >= 200 && c < 300:
		return nil
	case c == http.StatusRequestTimeout || c == http.StatusTooManyRequests || c >= 500:
		return fmt.Errorf("deliver to %s: answered %d", u.Host, c)
	default:
		return fmt.Errorf("%w: %s answered %d", store.ErrDeliveryRefused, u.Host, c)
	}
}

// newDeliverClient is the safe client (no private address unless allowed)
// that follows no redirect: an inbox that moved answers 3xx, which is
// refused.
func newDeliverClient(allowPrivate bool) *http.Client {
	c := newSafeClient(allowPrivate, deliverTimeout)
	c.CheckRedirect = func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }
	return c
}

// deliverTimeout bounds one delivery's connection and answer; the runner
// bounds the whole request too (runner.DefaultDeliveryTimeout).
const deliverTimeout = 15 * time.Second

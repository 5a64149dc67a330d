package webpush

import (
	"bytes"
	"cmp"
	"context"
	"crypto/ecdh"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"time"

	webpush "github.com/SherClockHolmes/webpush-go"

	"microblog/store"
)

// Defaults of the Options.
const (
	// DefaultTTL is how long a push service keeps a push for a device that
	// is away (Mastodon's 48 hours).
	DefaultTTL = 48 * time.Hour
	// DefaultRetries is how many times a push a push service failed is
	// tried again (a 429, a 5xx, no answer), a little later each time.
	DefaultRetries = 4
	// DefaultRetryBase is the wait before the first retry; it doubles.
	DefaultRetryBase = time.Second
	// sendTimeout bounds one POST to a push service.
	sendTimeout = 15 * time.Second
)

// Options are the settings of the pushes.
type Options struct {
	// PublicKey and PrivateKey are the operator's VAPID key pair
	// (MICROBLOG_VAPID_PUBLIC_KEY, MICROBLOG_VAPID_PRIVATE_KEY); empty:
	// the deployment's own, made once and kept in Redis.
	PublicKey, PrivateKey string
	// Subject is the contact the push services see in each VAPID token
	// (MICROBLOG_VAPID_SUBJECT, a mailto: or https: URI); empty: the
	// service's origin as the device reached it.
	Subject   string
	TTL       time.Duration
	Retries   int
	RetryBase time.Duration
	// Client sends the pushes (nil: one with a timeout).
	Client *http.Client
	Logger *slog.Logger
}

// Store is what the pushes read and write of the store.
type Store interface {
	store.PushDeliveries
	VAPIDKeys(ctx context.Context, generate func() (string, string, error)) (string, string, error)
}

// Service keeps the VAPID keys and delivers pushes. One per process.
type Service struct {
	st  Store
	opt Options

	mu        sync.Mutex
	pub, priv string
}

// New returns the pushes of st with opt.
func New(st Store, opt Options) *Service {
	if opt.TTL <= 0 {
		opt.TTL = DefaultTTL
	}
	if opt.Retries < 0 {
		opt.Retries = 0
	} else if opt.Retries == 0 {
		opt.Retries = DefaultRetries
	}
	if opt.RetryBase <= 0 {
		opt.RetryBase = DefaultRetryBase
	}
	if opt.Client == nil {
		opt.Client = &http.Client{Timeout: sendTimeout}
	}
	if opt.Logger == nil {
		opt.Logger = slog.Default()
	}
	return &Service{st: st, opt: opt, pub: opt.PublicKey, priv: opt.PrivateKey}
}

// CheckKeys checks an operator's VAPID key pair: a P-256 private key
// (32 bytes) and its public key (65 bytes, uncompressed), base64url.
func CheckKeys(public, private string) error {
	pk, err := decodeKey(private)
	if err != nil {
		return errors.New("the private key is not base64url")
	}
	key, err := ecdh.P256().NewPrivateKey(pk)
	if err != nil {
		return errors.New("the private key is not a P-256 key")
	}
	pub, err := decodeKey(public)
	if err != nil || !bytes.Equal(pub, key.PublicKey().Bytes()) {
		return errors.New("the public key is not the private key's")
	}
	return nil
}

// keys are the VAPID key pair: the operator's, else the deployment's,
// read (or made) once.
func (s *Service) keys(ctx context.Context) (string, string, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.pub != "" {
		return s.pub, s.priv, nil
	}
	pub, priv, err := s.st.VAPIDKeys(ctx, func() (string, string, error) {
		priv, pub, err := webpush.GenerateVAPIDKeys()
		return pub, priv, err
	})
	if err != nil {
		return "", "", err
	}
	s.pub, s.priv = pub, priv
	return pub, priv, nil
}

// PublicKey is the VAPID public key (base64url), which devices subscribe
// with (applicationServerKey) and apps read as server_key / vapid_key.
func (s *Service) PublicKey(ctx context.Context) (string, error) {
	pub, _, err := s.keys(ctx)
	return pub, err
}

// subject is the VAPID contact for a subscription made through origin, as
// webpush-go takes it: an https URL, or an e-mail address (it adds
// "mailto:").
func (s *Service) subject(origin string) string {
	sub := cmp.Or(s.opt.Subject, origin)
	if strings.HasPrefix(sub, "https://") {
		return sub
	}
	if addr, ok := strings.CutPrefix(sub, "mailto:"); ok {
		return addr
	}
	return "webpush@localhost" // a service reached over plain http (development)
}

// errGone is a subscription its push service no longer knows (404, 410).
var errGone = errors.New("webpush: subscription gone")

// send posts payload to sub's push service once: nil when it took it,
// errGone when the subscription is gone, a retryable error when it
// should be tried again, and a permanentError when not.
func (s *Service) send(ctx context.Context, sub store.PushSubscription, payload []byte, urgency webpush.Urgency) error {
	pub, priv, err := s.keys(ctx)
	if err != nil {
		return err
	}
	resp, err := webpush.SendNotificationWithContext(ctx, payload,
		&webpush.Subscription{Endpoint: sub.Endpoint, Keys: webpush.Keys{P256dh: sub.P256dh, Auth: sub.Auth}},
		&webpush.Options{HTTPClient: s.opt.Client, Subscriber: s.subject(sub.Origin), TTL: int(s.opt.TTL / time.Second),
			Urgency: urgency, VAPIDPublicKey: pub, VAPIDPrivateKey: priv})
	if err != nil {
		// Not the *url.Error itself: its text holds the endpoint, a
		// capability URL that stays out of the logs.
		var ue *url.Error
		if errors.As(err, &ue) {
			err = ue.Err
		}
		return fmt.Errorf("webpush: send: %w", err)
	}
	resp.Body.Close()
	switch c := resp.StatusCode; {
	case c >= 200 && c < 300:
		return nil
	case c == http.StatusNotFound || c == http.StatusGone:
		return errGone
	case c == http.StatusTooManyRequests || c >= 500:
		return fmt.Errorf("webpush: push service answered %d", c)
	default:
		return permanentError{c}
	}
}

// permanentError is a push service's refusal that a retry would meet again
// (400, 401, 403, 413).
type permanentError struct{ status int }

func (e permanentError) Error() string {
	return fmt.Sprintf("webpush: push service refused the push: %d", e.status)
}

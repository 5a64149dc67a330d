package main

import (
	"fmt"
	"log/slog"
	"strings"
	"time"

	"microblog/server/webpush"
	"microblog/store"
)

// pushConfig is the settings of Web Push, from the environment.
type pushConfig struct {
	// PublicKey and PrivateKey are the VAPID key pair
	// (MICROBLOG_VAPID_PUBLIC_KEY, MICROBLOG_VAPID_PRIVATE_KEY, base64url,
	// both or neither); unset, the deployment makes one at first start and
	// keeps it in Redis. The private key is a secret: never logged.
	PublicKey, PrivateKey string
	// Subject is the contact the push services see (MICROBLOG_VAPID_SUBJECT,
	// a mailto: or https: URI); unset, the service's own origin.
	Subject string
	// RetryBase is the wait before a failed push is tried again, doubled
	// each time (MICROBLOG_PUSH_RETRY_BASE, 1s): short in tests.
	RetryBase time.Duration
}

// readPushSettings reads cfg.Push; a bad value is an error naming its
// variable (never showing the private key).
func readPushSettings(getenv func(string) string, cfg *config) error {
	pc := pushConfig{PublicKey: strings.TrimSpace(getenv("MICROBLOG_VAPID_PUBLIC_KEY")),
		PrivateKey: strings.TrimSpace(getenv("MICROBLOG_VAPID_PRIVATE_KEY")),
		Subject:    strings.TrimSpace(getenv("MICROBLOG_VAPID_SUBJECT")), RetryBase: webpush.DefaultRetryBase}
	if (pc.PublicKey == "") != (pc.PrivateKey == "") {
		return fmt.Errorf("invalid MICROBLOG_VAPID_PUBLIC_KEY and MICROBLOG_VAPID_PRIVATE_KEY: set both or neither")
	}
	if pc.PublicKey != "" {
		if err := webpush.CheckKeys(pc.PublicKey, pc.PrivateKey); err != nil {
			return fmt.Errorf("invalid MICROBLOG_VAPID_PUBLIC_KEY and MICROBLOG_VAPID_PRIVATE_KEY: %v", err)
		}
	}
	if s := pc.Subject; s != "" && !strings.HasPrefix(s, "mailto:") && !strings.HasPrefix(s, "https://") {
		return fmt.Errorf("invalid MICROBLOG_VAPID_SUBJECT %q: want a mailto: or https: URI", s)
	}
	if err := readEnvDurations(getenv, []envDuration{{"MICROBLOG_PUSH_RETRY_BASE", &pc.RetryBase, time.Millisecond}}); err != nil {
		return err
	}
	cfg.Push = pc
	return nil
}

// newPush is the Web Push service of the process over st.
func newPush(pc pushConfig, st webpush.Store, logger *slog.Logger) *webpush.Service {
	return webpush.New(st, webpush.Options{PublicKey: pc.PublicKey, PrivateKey: pc.PrivateKey,
		Subject: pc.Subject, RetryBase: pc.RetryBase, Logger: logger})
}

// The store every API is given is what the pushes need.
var _ webpush.Store = store.Service(nil)

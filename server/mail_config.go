package main

import (
	"context"
	"fmt"
	"log/slog"
	"net"
	"net/mail"
	"net/url"
	"strings"
	"sync/atomic"
	"time"

	mailer "microblog/server/mail"
	"microblog/store"
)

// mailConfig is the settings of the mail the service sends (addresses'
// confirmations and password resets), from the environment.
type mailConfig struct {
	// SMTP is the server of MICROBLOG_SMTP_URL; nil: no mail, and the
	// routes that send it answer 503 mail_unavailable.
	SMTP *mailer.Server
	// CAFile is MICROBLOG_SMTP_CA: a PEM file of the CAs trusted for the
	// SMTP server's TLS; empty: the system's.
	CAFile string
	// publicURL is the origin the mailed links point at: MICROBLOG_PUBLIC_URL,
	// else, once the server listens, its own address (listening). Never a
	// request's Host, which whoever asks for a reset could forge to have the
	// link point at a server of theirs.
	publicURL *atomic.Pointer[string]
	// RetryWait is MICROBLOG_MAIL_RETRY_WAIT: the pause after a failed
	// send, doubled after each (1s).
	RetryWait time.Duration
}

// readMailSettings reads cfg.Mail; a bad value is an error naming its
// variable (never showing the SMTP password).
func readMailSettings(getenv func(string) string, cfg *config) error {
	mc := mailConfig{publicURL: new(atomic.Pointer[string]), CAFile: strings.TrimSpace(getenv("MICROBLOG_SMTP_CA")), RetryWait: time.Second}
	// "self" is the server's own listening address, known once it listens
	// (tests: two instances federating on free ports).
	if pub := strings.TrimRight(strings.TrimSpace(getenv("MICROBLOG_PUBLIC_URL")), "/"); pub != "" && pub != "self" {
		u, err := url.Parse(pub)
		if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" || u.Path != "" || u.RawQuery != "" || u.User != nil {
			return fmt.Errorf("invalid MICROBLOG_PUBLIC_URL %q: want the origin the world reaches, such as https://weibo.example.edu", pub)
		}
		mc.publicURL.Store(&pub)
	}
	raw := strings.TrimSpace(getenv("MICROBLOG_SMTP_URL"))
	from := strings.TrimSpace(getenv("MICROBLOG_MAIL_FROM"))
	if raw != "" {
		srv, err := mailer.ParseURL(raw)
		if err != nil {
			return fmt.Errorf("invalid MICROBLOG_SMTP_URL %q: %v", redactURL(raw), err)
		}
		if from == "" {
			return fmt.Errorf("MICROBLOG_MAIL_FROM is missing: with MICROBLOG_SMTP_URL set, say whom mail is from, such as Microblog <noreply@weibo.example.edu>")
		}
		if _, err := mail.ParseAddress(from); err != nil {
			return fmt.Errorf("invalid MICROBLOG_MAIL_FROM %q: want an address such as Microblog <noreply@weibo.example.edu>", from)
		}
		srv.From = from
		mc.SMTP = &srv
		if mc.CAFile != "" {
			if _, err := mailer.New(srv, nil, mailer.Options{PublicURL: mc.PublicURL, CAFile: mc.CAFile}); err != nil {
				return fmt.Errorf("invalid MICROBLOG_SMTP_CA %q: %v", mc.CAFile, err)
			}
		}
	}
	if err := readEnvDurations(getenv, []envDuration{{"MICROBLOG_MAIL_RETRY_WAIT", &mc.RetryWait, time.Millisecond}}); err != nil {
		return err
	}
	cfg.Mail = mc
	return nil
}

// listening makes the server's own address the links' origin when
// MICROBLOG_PUBLIC_URL is unset (a laptop's make run).
func (mc mailConfig) listening(addr net.Addr) {
	if mc.publicURL == nil || mc.publicURL.Load() != nil {
		return
	}
	host, port, err := net.SplitHostPort(addr.String())
	if err != nil {
		return
	}
	if ip := net.ParseIP(host); ip == nil || ip.IsUnspecified() {
		host = "localhost"
	}
	u := "http://" + net.JoinHostPort(host, port)
	mc.publicURL.Store(&u)
}

// PublicURL is the links' origin as known now.
func (mc mailConfig) PublicURL() string {
	if p := mc.publicURL.Load(); p != nil {
		return *p
	}
	return ""
}

// newMailDeliver is what the mailer runner hands each job to: nil (the
// runner then does nothing) without an SMTP server.
func newMailDeliver(mc mailConfig, st store.MailDeliveries, logger *slog.Logger) func(context.Context, store.MailJob) error {
	if mc.SMTP == nil {
		return nil
	}
	m, err := mailer.New(*mc.SMTP, st, mailer.Options{PublicURL: mc.PublicURL, CAFile: mc.CAFile, Wait: mc.RetryWait, Logger: logger})
	if err != nil { // the settings were checked at start
		logger.Error("mail: cannot send", "err", err)
		return nil
	}
	return m.Deliver
}

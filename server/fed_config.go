package main

import (
	"fmt"
	"log/slog"
	"strings"

	"microblog/server/federation"
	"microblog/store/redisdb"
)

// fedConfig is federation's settings (CONTRACT.md §16, docs/federation.md).
type fedConfig struct {
	// On is MICROBLOG_FEDERATION=on (default off); it needs
	// MICROBLOG_PUBLIC_URL, whose host is the domain of every handle.
	On bool
	// AllowPrivate is MICROBLOG_FEDERATION_ALLOW_PRIVATE=on: peers on
	// http:// and on loopback or private addresses are allowed (tests and
	// closed networks only).
	AllowPrivate bool
}

// readFedSettings reads cfg.Fed, after cfg.Mail (whose public URL it
// shares); a bad value is an error naming its variable.
func readFedSettings(getenv func(string) string, cfg *config) error {
	var fc fedConfig
	var err error
	if fc.On, err = onOff(getenv, "MICROBLOG_FEDERATION"); err != nil {
		return err
	}
	if fc.AllowPrivate, err = onOff(getenv, "MICROBLOG_FEDERATION_ALLOW_PRIVATE"); err != nil {
		return err
	}
	if fc.On && strings.TrimSpace(getenv("MICROBLOG_PUBLIC_URL")) == "" {
		return fmt.Errorf("MICROBLOG_PUBLIC_URL is missing: MICROBLOG_FEDERATION=on needs the origin the world reaches, such as https://weibo.example.edu")
	}
	cfg.Fed = fc
	return nil
}

// onOff reads a setting that is on or off (default off).
func onOff(getenv func(string) string, name string) (bool, error) {
	switch v := strings.TrimSpace(getenv(name)); v {
	case "", "off":
		return false, nil
	case "on":
		return true, nil
	default:
		return false, fmt.Errorf("invalid %s %q: want on or off", name, v)
	}
}

// newFederation is the federation over st, nil when it is off.
func newFederation(cfg config, st *redisdb.Store, logger *slog.Logger) *federation.Service {
	if !cfg.Fed.On {
		return nil
	}
	return federation.New(st, federation.Options{
		PublicURL:    cfg.Mail.PublicURL,
		AllowPrivate: cfg.Fed.AllowPrivate,
		Software:     "microblog", Version: "1.0",
		Logger: logger,
	})
}

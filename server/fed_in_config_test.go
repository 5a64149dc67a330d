package main

import (
	"io"
	"strings"
	"testing"
)

// TestFedInSettings: federation on needs a public URL; the switches are on
// or off; a bad value is an error naming its variable.
func TestFedInSettings(t *testing.T) {
	for _, c := range []struct {
		env  map[string]string
		want string
	}{
		{map[string]string{"MICROBLOG_FEDERATION": "on"}, "MICROBLOG_PUBLIC_URL"},
		{map[string]string{"MICROBLOG_FEDERATION": "yes", "MICROBLOG_PUBLIC_URL": "https://w.example"}, "MICROBLOG_FEDERATION"},
		{map[string]string{"MICROBLOG_FEDERATION_ALLOW_PRIVATE": "1"}, "MICROBLOG_FEDERATION_ALLOW_PRIVATE"},
		{map[string]string{"MICROBLOG_FEDERATION": "on", "MICROBLOG_PUBLIC_URL": "w.example"}, "MICROBLOG_PUBLIC_URL"},
	} {
		_, err := loadConfig(nil, func(k string) string { return c.env[k] }, io.Discard)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%v: %v, want an error naming %s", c.env, err, c.want)
		}
	}
	cfg, err := loadConfig(nil, func(k string) string {
		return map[string]string{"MICROBLOG_FEDERATION": "on", "MICROBLOG_PUBLIC_URL": "https://w.example"}[k]
	}, io.Discard)
	if err != nil || !cfg.Fed.On || cfg.Fed.AllowPrivate || cfg.Mail.PublicURL() != "https://w.example" {
		t.Errorf("good settings: %+v %v", cfg.Fed, err)
	}
}

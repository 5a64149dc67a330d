package webpush

import (
	"crypto/ecdh"
	"crypto/rand"
	"encoding/base64"
	"errors"
	"testing"

	"microblog/store"
)

func TestCheckSubscription(t *testing.T) {
	k, _ := ecdh.P256().GenerateKey(rand.Reader)
	key := base64.RawURLEncoding.EncodeToString(k.PublicKey().Bytes())
	std := base64.StdEncoding.EncodeToString(k.PublicKey().Bytes()) // Mastodon.py's
	auth := base64.RawURLEncoding.EncodeToString(make([]byte, 16))
	for _, c := range []struct {
		endpoint, p256dh, auth string
		ok                     bool
	}{
		{"https://fcm.googleapis.com/fcm/send/abc", key, auth, true},
		{"https://push.example/x", std, auth + "==", true},
		{"http://127.0.0.1:8080/x", key, auth, true},
		{"http://[::1]:8080/x", key, auth, true},
		{"http://localhost/x", key, auth, true},
		{"http://push.example/x", key, auth, false},
		{"http://10.0.0.1/x", key, auth, false},
		{"https://user:pw@push.example/x", key, auth, false},
		{"ftp://push.example/x", key, auth, false},
		{"https:///x", key, auth, false},
		{"", key, auth, false},
		{"https://push.example/x", key[:40], auth, false},
		{"https://push.example/x", base64.RawURLEncoding.EncodeToString(append([]byte{4}, make([]byte, 64)...)), auth, false},
		{"https://push.example/x", key, base64.RawURLEncoding.EncodeToString(make([]byte, 15)), false},
		{"https://push.example/x", key, "", false},
	} {
		err := CheckSubscription(c.endpoint, c.p256dh, c.auth)
		if (err == nil) != c.ok || (err != nil && !errors.Is(err, store.ErrInvalid)) {
			t.Errorf("CheckSubscription(%q, %.12q…, %q) = %v, want ok %v", c.endpoint, c.p256dh, c.auth, err, c.ok)
		}
	}
}

func TestCheckKeys(t *testing.T) {
	k, _ := ecdh.P256().GenerateKey(rand.Reader)
	other, _ := ecdh.P256().GenerateKey(rand.Reader)
	enc := base64.RawURLEncoding.EncodeToString
	if err := CheckKeys(enc(k.PublicKey().Bytes()), enc(k.Bytes())); err != nil {
		t.Errorf("a matching pair: %v", err)
	}
	if err := CheckKeys(enc(other.PublicKey().Bytes()), enc(k.Bytes())); err == nil {
		t.Error("a public key of another pair is taken")
	}
	if err := CheckKeys(enc(k.PublicKey().Bytes()), "short"); err == nil {
		t.Error("a private key of 4 bytes is taken")
	}
}

func TestLangAndSubject(t *testing.T) {
	for tag, want := range map[string]string{"zh-CN": "zh", "zh-Hant;q=0.9": "zh", "en-US,en": "en", "": "en", "fr": "en"} {
		if got := Lang(tag); got != want {
			t.Errorf("Lang(%q) = %q, want %q", tag, got, want)
		}
	}
	s := New(nil, Options{})
	for origin, want := range map[string]string{"https://mb.example.org": "https://mb.example.org", "http://127.0.0.1:8080": "webpush@localhost"} {
		if got := s.subject(origin); got != want {
			t.Errorf("subject(%q) = %q, want %q", origin, got, want)
		}
	}
	s = New(nil, Options{Subject: "mailto:ops@example.org"})
	if got := s.subject("https://mb.example.org"); got != "ops@example.org" {
		t.Errorf("the operator's subject: %q", got)
	}
}

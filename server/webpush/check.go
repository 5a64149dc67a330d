package webpush

import (
	"crypto/ecdh"
	"encoding/base64"
	"net"
	"net/url"
	"strings"

	"microblog/store"
)

// MaxEndpoint bounds the length of an endpoint URL.
const MaxEndpoint = 2048

// decodeKey decodes a subscription key as browsers and apps send it:
// base64url, padded or not (standard base64 is taken too, as webpush-go
// does).
func decodeKey(s string) ([]byte, error) {
	s = strings.TrimRight(strings.TrimSpace(s), "=")
	if b, err := base64.RawURLEncoding.DecodeString(s); err == nil {
		return b, nil
	}
	return base64.RawStdEncoding.DecodeString(s)
}

// CheckSubscription checks what a device gives to be pushed to: an https
// endpoint (http only on a loopback address, for a push service on the
// same machine such as the tests'), a P-256 public key (p256dh) and a
// 16-byte auth secret. A bad one is a store.ErrInvalid naming the field.
func CheckSubscription(endpoint, p256dh, auth string) error {
	bad := func(field, msg string) error {
		return store.NewError(store.ErrInvalid, store.CodeInvalidField, field+" "+msg)
	}
	u, err := url.Parse(endpoint)
	if endpoint == "" || len(endpoint) > MaxEndpoint || err != nil || u.Host == "" || u.User != nil {
		return bad("endpoint", "must be an https URL")
	}
	switch u.Scheme {
	case "https":
	case "http":
		if !loopback(u.Hostname()) {
			return bad("endpoint", "must be an https URL")
		}
	default:
		return bad("endpoint", "must be an https URL")
	}
	if k, err := decodeKey(p256dh); err != nil || len(k) != 65 {
		return bad("keys.p256dh", "must be a P-256 public key (65 bytes, base64url)")
	} else if _, err := ecdh.P256().NewPublicKey(k); err != nil {
		return bad("keys.p256dh", "must be a P-256 public key (65 bytes, base64url)")
	}
	if k, err := decodeKey(auth); err != nil || len(k) != 16 {
		return bad("keys.auth", "must be a 16-byte secret (base64url)")
	}
	return nil
}

// loopback tells whether host is this machine.
func loopback(host string) bool {
	if strings.EqualFold(host, "localhost") {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

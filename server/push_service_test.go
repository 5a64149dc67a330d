package main

import (
	"crypto/aes"
	"crypto/cipher"
	"crypto/ecdh"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"io"
	"math/big"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"golang.org/x/crypto/hkdf"
)

// The tests' push service and user agent: a device that subscribes with a
// key pair and auth secret of its own, and a push service (an httptest
// server on the loopback address, which the service takes over http) that
// checks each push's VAPID signature against the server's public key and
// decrypts its body as the device would (RFC 8291), with no library of
// the server's.

// device is one subscribed user agent.
type device struct {
	priv *ecdh.PrivateKey
	auth []byte
}

func newDevice(t testing.TB) *device {
	t.Helper()
	k, err := ecdh.P256().GenerateKey(rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	auth := make([]byte, 16)
	rand.Read(auth)
	return &device{priv: k, auth: auth}
}

func b64(b []byte) string { return base64.RawURLEncoding.EncodeToString(b) }

// p256dh and authKey are the device's keys as a browser gives them.
func (d *device) p256dh() string  { return b64(d.priv.PublicKey().Bytes()) }
func (d *device) authKey() string { return b64(d.auth) }

// decrypt opens an aes128gcm body (RFC 8188) encrypted to d (RFC 8291).
func (d *device) decrypt(body []byte) ([]byte, error) {
	if len(body) < 21 {
		return nil, fmt.Errorf("body of %d bytes", len(body))
	}
	salt, rs, idlen := body[:16], binary.BigEndian.Uint32(body[16:20]), int(body[20])
	if idlen != 65 || len(body) < 21+idlen {
		return nil, fmt.Errorf("keyid of %d bytes, want the sender's 65-byte key", idlen)
	}
	asPub, err := ecdh.P256().NewPublicKey(body[21 : 21+idlen])
	if err != nil {
		return nil, fmt.Errorf("sender key: %w", err)
	}
	records := body[21+idlen:]
	if len(records) > int(rs) {
		return nil, fmt.Errorf("more than one record (%d > rs %d)", len(records), rs)
	}
	shared, err := d.priv.ECDH(asPub)
	if err != nil {
		return nil, err
	}
	expand := func(prk []byte, info string, n int) []byte {
		out := make([]byte, n)
		io.ReadFull(hkdf.Expand(sha256.New, prk, []byte(info)), out)
		return out
	}
	keyInfo := "WebPush: info\x00" + string(d.priv.PublicKey().Bytes()) + string(asPub.Bytes())
	ikm := expand(hkdf.Extract(sha256.New, shared, d.auth), keyInfo, 32)
	prk := hkdf.Extract(sha256.New, ikm, salt)
	cek := expand(prk, "Content-Encoding: aes128gcm\x00", 16)
	nonce := expand(prk, "Content-Encoding: nonce\x00", 12)
	block, _ := aes.NewCipher(cek)
	gcm, _ := cipher.NewGCM(block)
	plain, err := gcm.Open(nil, nonce, records, nil)
	if err != nil {
		return nil, fmt.Errorf("open: %w", err)
	}
	plain = []byte(strings.TrimRight(string(plain), "\x00"))
	if len(plain) == 0 || plain[len(plain)-1] != 2 {
		return nil, fmt.Errorf("no last-record delimiter")
	}
	return plain[:len(plain)-1], nil
}

// pushed is one push the push service took, as the device read it.
type pushed struct {
	Path    string
	Payload map[string]any
	TTL     string
	Urgency string
}

// pushService is a push service: each device's endpoint is a path of it.
type pushService struct {
	t   testing.TB
	srv *httptest.Server
	// serverKey is the VAPID public key pushes must be signed with.
	serverKey string

	mu      sync.Mutex
	devices map[string]*device
	got     []pushed
	tries   map[string]int
	// answers are the statuses to answer a path's next pushes with, in
	// turn (then 201).
	answers map[string][]int
	bad     []string // what was wrong with a push
	arrived chan struct{}
}

func newPushService(t testing.TB, serverKey string) *pushService {
	p := &pushService{t: t, serverKey: serverKey, devices: map[string]*device{}, tries: map[string]int{},
		answers: map[string][]int{}, arrived: make(chan struct{}, 100)}
	p.srv = httptest.NewServer(http.HandlerFunc(p.serve))
	t.Cleanup(p.srv.Close)
	return p
}

// endpoint subscribes a new device at path and returns its endpoint.
func (p *pushService) endpoint(path string, d *device) string {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.devices[path] = d
	return p.srv.URL + path
}

// answer makes the next pushes to path be answered with statuses.
func (p *pushService) answer(path string, statuses ...int) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.answers[path] = statuses
}

func (p *pushService) serve(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	p.mu.Lock()
	defer p.mu.Unlock()
	defer func() { p.arrived <- struct{}{} }()
	p.tries[r.URL.Path]++
	fail := func(format string, args ...any) {
		p.bad = append(p.bad, r.URL.Path+": "+fmt.Sprintf(format, args...))
		w.WriteHeader(http.StatusBadRequest)
	}
	if err := p.checkVAPID(r.Header.Get("Authorization")); err != nil {
		fail("VAPID: %v", err)
		return
	}
	if ce := r.Header.Get("Content-Encoding"); ce != "aes128gcm" {
		fail("Content-Encoding %q", ce)
		return
	}
	if next := p.answers[r.URL.Path]; len(next) > 0 {
		p.answers[r.URL.Path] = next[1:]
		w.WriteHeader(next[0])
		return
	}
	d := p.devices[r.URL.Path]
	if d == nil {
		w.WriteHeader(http.StatusGone)
		return
	}
	plain, err := d.decrypt(body)
	if err != nil {
		fail("decrypt: %v", err)
		return
	}
	var payload map[string]any
	if err := json.Unmarshal(plain, &payload); err != nil {
		fail("payload %q: %v", plain, err)
		return
	}
	p.got = append(p.got, pushed{Path: r.URL.Path, Payload: payload, TTL: r.Header.Get("TTL"), Urgency: r.Header.Get("Urgency")})
	w.WriteHeader(http.StatusCreated)
}

// checkVAPID checks an Authorization header "vapid t=<JWT>, k=<key>"
// (RFC 8292): k is the server's key, the JWT is ES256-signed with it, for
// this push service's origin (aud), not expired, with a contact (sub).
func (p *pushService) checkVAPID(h string) error {
	rest, ok := strings.CutPrefix(h, "vapid ")
	if !ok {
		return fmt.Errorf("authorization %q is not vapid", h)
	}
	var tok, key string
	for _, part := range strings.Split(rest, ",") {
		k, v, _ := strings.Cut(strings.TrimSpace(part), "=")
		switch k {
		case "t":
			tok = v
		case "k":
			key = v
		}
	}
	if key != p.serverKey {
		return fmt.Errorf("k=%q, want the server's key %q", key, p.serverKey)
	}
	parts := strings.Split(tok, ".")
	if len(parts) != 3 {
		return fmt.Errorf("token %q is not a JWT", tok)
	}
	raw, _ := base64.RawURLEncoding.DecodeString(key)
	x, y := elliptic.Unmarshal(elliptic.P256(), raw)
	if x == nil {
		return fmt.Errorf("k is not a P-256 key")
	}
	sig, err := base64.RawURLEncoding.DecodeString(parts[2])
	if err != nil || len(sig) != 64 {
		return fmt.Errorf("signature of %d bytes", len(sig))
	}
	digest := sha256.Sum256([]byte(parts[0] + "." + parts[1]))
	pub := &ecdsa.PublicKey{Curve: elliptic.P256(), X: x, Y: y}
	if !ecdsa.Verify(pub, digest[:], new(big.Int).SetBytes(sig[:32]), new(big.Int).SetBytes(sig[32:])) {
		return fmt.Errorf("the signature is not the server key's")
	}
	var header struct{ Alg string }
	var claims struct {
		Aud string
		Exp int64
		Sub string
	}
	hb, _ := base64.RawURLEncoding.DecodeString(parts[0])
	cb, _ := base64.RawURLEncoding.DecodeString(parts[1])
	if json.Unmarshal(hb, &header) != nil || header.Alg != "ES256" {
		return fmt.Errorf("header %s", hb)
	}
	if json.Unmarshal(cb, &claims) != nil {
		return fmt.Errorf("claims %s", cb)
	}
	if claims.Aud != p.srv.URL {
		return fmt.Errorf("aud %q, want %q", claims.Aud, p.srv.URL)
	}
	if now := time.Now().Unix(); claims.Exp <= now || claims.Exp > now+24*3600 {
		return fmt.Errorf("exp %d is not within a day", claims.Exp)
	}
	if !strings.HasPrefix(claims.Sub, "mailto:") && !strings.HasPrefix(claims.Sub, "https://") {
		return fmt.Errorf("sub %q is no contact", claims.Sub)
	}
	return nil
}

// pushes are the pushes path got so far.
func (p *pushService) pushes(path string) []pushed {
	p.mu.Lock()
	defer p.mu.Unlock()
	var out []pushed
	for _, g := range p.got {
		if g.Path == path {
			out = append(out, g)
		}
	}
	return out
}

// triesOf is how many pushes path was sent, taken or not.
func (p *pushService) triesOf(path string) int {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.tries[path]
}

// waitPushes waits until path got n pushes and returns them; it fails the
// test on any push that was not as it must be.
func (p *pushService) waitPushes(t testing.TB, path string, n int) []pushed {
	t.Helper()
	deadline := time.After(hangWait)
	for {
		p.mu.Lock()
		bad := p.bad
		p.mu.Unlock()
		if len(bad) > 0 {
			t.Fatalf("bad pushes: %v", bad)
		}
		if got := p.pushes(path); len(got) >= n {
			return got
		}
		select {
		case <-p.arrived:
		case <-time.After(50 * time.Millisecond):
		case <-deadline:
			t.Fatalf("%s: %d pushes, want %d", path, len(p.pushes(path)), n)
		}
	}
}

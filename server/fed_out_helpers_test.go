package main

import (
	"context"
	"crypto/rsa"
	"crypto/sha256"
	"crypto/x509"
	"encoding/base64"
	"encoding/json"
	"encoding/pem"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/go-fed/httpsig"

	"microblog/store"
	"microblog/store/redisdb"
)

// apInbox is a remote server's shared inbox for the outbound tests: a real
// HTTP server that checks every request as a peer would (Content-Type,
// Date, Host, Digest against the body, and the draft-cavage signature
// with go-fed/httpsig against the signer's public key, fetched from the
// actor our server serves) and records the activities it took.
type apInbox struct {
	t   testing.TB
	srv *httptest.Server
	mu  sync.Mutex
	got []inboxHit
	bad []string
	// keys caches the actors' public keys by key id.
	keys map[string]*rsa.PublicKey
	// delay holds each answer back; status answers (202 when 0).
	delay  time.Duration
	status func(n int) int
	// hold, when set, holds each answer back until it is closed.
	hold chan struct{}
}

// inboxHit is one activity an inbox took.
type inboxHit struct {
	at       time.Time
	path     string
	keyID    string
	activity map[string]any
}

func newAPInbox(t testing.TB) *apInbox {
	in := &apInbox{t: t, keys: map[string]*rsa.PublicKey{}}
	in.srv = httptest.NewServer(http.HandlerFunc(in.serve))
	t.Cleanup(in.srv.Close)
	return in
}

func (in *apInbox) serve(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	if in.hold != nil {
		select {
		case <-in.hold:
		case <-r.Context().Done():
			return
		}
	}
	if in.delay > 0 {
		select {
		case <-time.After(in.delay):
		case <-r.Context().Done():
			return
		}
	}
	keyID, err := in.verify(r, body)
	if err != nil {
		in.mu.Lock()
		in.bad = append(in.bad, err.Error())
		in.mu.Unlock()
		http.Error(w, err.Error(), http.StatusUnauthorized)
		return
	}
	var act map[string]any
	if err := json.Unmarshal(body, &act); err != nil {
		http.Error(w, "not JSON", http.StatusBadRequest)
		return
	}
	in.mu.Lock()
	n := len(in.got)
	in.got = append(in.got, inboxHit{at: time.Now(), path: r.URL.Path, keyID: keyID, activity: act})
	status := 202
	if in.status != nil {
		status = in.status(n)
	}
	in.mu.Unlock()
	w.WriteHeader(status)
}

// verify checks a delivery as a peer does; it returns the key id.
func (in *apInbox) verify(r *http.Request, body []byte) (string, error) {
	if r.Method != http.MethodPost || r.Header.Get("Content-Type") != "application/activity+json" {
		return "", fmt.Errorf("%s with Content-Type %q", r.Method, r.Header.Get("Content-Type"))
	}
	if d, err := http.ParseTime(r.Header.Get("Date")); err != nil || time.Since(d).Abs() > time.Hour {
		return "", fmt.Errorf("bad Date %q", r.Header.Get("Date"))
	}
	sum := sha256.Sum256(body)
	if want := "SHA-256=" + base64.StdEncoding.EncodeToString(sum[:]); r.Header.Get("Digest") != want {
		return "", fmt.Errorf("Digest %q, want %q", r.Header.Get("Digest"), want)
	}
	if !strings.Contains(r.Header.Get("Signature"), `headers="(request-target) host date digest"`) {
		return "", fmt.Errorf("signature covers the wrong headers: %s", r.Header.Get("Signature"))
	}
	v, err := httpsig.NewVerifier(r)
	if err != nil {
		return "", fmt.Errorf("no signature: %v", err)
	}
	pub, err := in.key(v.KeyId())
	if err != nil {
		return "", err
	}
	if err := v.Verify(pub, httpsig.RSA_SHA256); err != nil {
		return "", fmt.Errorf("signature by %s does not verify: %v", v.KeyId(), err)
	}
	return v.KeyId(), nil
}

// key fetches the actor of keyID from its server and reads its key.
func (in *apInbox) key(keyID string) (*rsa.PublicKey, error) {
	in.mu.Lock()
	k := in.keys[keyID]
	in.mu.Unlock()
	if k != nil {
		return k, nil
	}
	actor, _, _ := strings.Cut(keyID, "#")
	req, _ := http.NewRequest("GET", actor, nil)
	req.Header.Set("Accept", activityJSON)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return nil, fmt.Errorf("fetch actor %s: %v", actor, err)
	}
	defer resp.Body.Close()
	var doc struct {
		PublicKey struct{ ID, Owner, PublicKeyPem string }
	}
	if err := json.NewDecoder(resp.Body).Decode(&doc); err != nil || doc.PublicKey.ID != keyID || doc.PublicKey.Owner != actor {
		return nil, fmt.Errorf("actor %s: %d %v %+v", actor, resp.StatusCode, err, doc.PublicKey)
	}
	block, _ := pem.Decode([]byte(doc.PublicKey.PublicKeyPem))
	if block == nil {
		return nil, fmt.Errorf("actor %s: key not PEM", actor)
	}
	pk, err := x509.ParsePKIXPublicKey(block.Bytes)
	if err != nil {
		return nil, err
	}
	rk := pk.(*rsa.PublicKey)
	in.mu.Lock()
	in.keys[keyID] = rk
	in.mu.Unlock()
	return rk, nil
}

func (in *apInbox) hits() []inboxHit {
	in.mu.Lock()
	defer in.mu.Unlock()
	if len(in.bad) > 0 {
		in.t.Errorf("%s refused deliveries: %v", in.srv.URL, in.bad)
		in.bad = nil
	}
	return append([]inboxHit(nil), in.got...)
}

// wait waits until the inbox took n activities (within hangWait).
func (in *apInbox) wait(t testing.TB, n int) []inboxHit {
	t.Helper()
	deadline := time.Now().Add(hangWait)
	for {
		h := in.hits()
		if len(h) >= n {
			return h
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s took %d activities, want %d", in.srv.URL, len(h), n)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// ofType are the activities of type typ among hits.
func ofType(hits []inboxHit, typ string) []inboxHit {
	var out []inboxHit
	for _, h := range hits {
		if h.activity["type"] == typ {
			out = append(out, h)
		}
	}
	return out
}

// fedStore is a store over the test server's Redis, for what another
// server would have done through the inbox: remote accounts and their
// follows.
func (ts *testServer) fedStore(t testing.TB) *redisdb.Store {
	return redisdb.New(ts.rdb(), redisdb.Options{})
}

// remoteFollower makes a remote account on in's server (name, its own
// inbox under in and in's shared inbox) follow local user uid, as an
// accepted Follow through the inbox leaves it; shared false gives it no
// shared inbox.
func (ts *testServer) remoteFollower(t testing.TB, in *apInbox, name string, uid int64, shared bool) int64 {
	t.Helper()
	ruid := ts.remoteAccount(t, in.srv.URL, name, shared)
	st := ts.fedStore(t)
	ctx := context.Background()
	if err := st.Follow(ctx, ruid, uid); err != nil {
		t.Fatal(err)
	}
	if err := st.MarkFedFans(ctx, uid); err != nil {
		t.Fatal(err)
	}
	return ruid
}

// remoteAccount makes a remote account at base (a sink's URL).
func (ts *testServer) remoteAccount(t testing.TB, base, name string, shared bool) int64 {
	t.Helper()
	host := strings.TrimPrefix(base, "http://")
	a := store.RemoteActor{ID: base + "/users/" + name, Handle: name + "@" + host, Inbox: base + "/users/" + name + "/inbox",
		Followers: base + "/users/" + name + "/followers", URL: base + "/@" + name}
	if shared {
		a.SharedInbox = base + "/inbox"
	}
	ruid, err := ts.fedStore(t).SaveRemoteActor(context.Background(), a)
	if err != nil {
		t.Fatal(err)
	}
	return ruid
}

// deadBase is the URL of a port nothing listens on (connection refused).
func deadBase(t testing.TB) string {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	l.Close()
	return "http://" + addr
}

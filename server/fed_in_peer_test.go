package main

import (
	"bytes"
	"crypto"
	"crypto/rand"
	"crypto/rsa"
	"crypto/sha256"
	"crypto/x509"
	"encoding/base64"
	"encoding/json"
	"encoding/pem"
	"io"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/go-fed/httpsig"
)

// fakePeer is another ActivityPub server as the inbound tests need one: a
// real HTTP server (httptest) serving WebFinger and actors, each with its
// own RSA key, and inboxes that keep what they receive after checking its
// signature against the sender's actor. The tests send its activities
// with send, signed as a real server signs them (go-fed/httpsig,
// draft-cavage rsa-sha256).
type fakePeer struct {
	t   testing.TB
	srv *httptest.Server
	mu  sync.Mutex
	// keys are the actors' keys by name.
	keys map[string]*rsa.PrivateKey
	// locked are the actors that approve followers.
	locked map[string]bool
	// got are the activities received, in order, with whether their
	// signature held.
	got []peerDelivery
	// fetches counts the GETs it answered.
	fetches int
}

// peerDelivery is an activity a fakePeer's inbox received.
type peerDelivery struct {
	Activity map[string]any
	Signed   bool
}

func newFakePeer(t testing.TB) *fakePeer {
	p := &fakePeer{t: t, keys: map[string]*rsa.PrivateKey{}, locked: map[string]bool{}}
	mux := http.NewServeMux()
	mux.HandleFunc("GET /.well-known/webfinger", func(w http.ResponseWriter, r *http.Request) {
		p.count()
		name, _, _ := strings.Cut(strings.TrimPrefix(r.URL.Query().Get("resource"), "acct:"), "@")
		if p.key(name) == nil {
			http.NotFound(w, r)
			return
		}
		w.Header().Set("Content-Type", "application/jrd+json")
		json.NewEncoder(w).Encode(map[string]any{"subject": "acct:" + name + "@" + p.host(),
			"links": []map[string]string{{"rel": "self", "type": "application/activity+json", "href": p.actor(name)}}})
	})
	mux.HandleFunc("GET /users/{name}", func(w http.ResponseWriter, r *http.Request) {
		p.count()
		name := r.PathValue("name")
		k := p.key(name)
		if k == nil {
			http.NotFound(w, r)
			return
		}
		pub, _ := x509.MarshalPKIXPublicKey(&k.PublicKey)
		id := p.actor(name)
		p.mu.Lock()
		locked := p.locked[name]
		p.mu.Unlock()
		w.Header().Set("Content-Type", "application/activity+json")
		json.NewEncoder(w).Encode(map[string]any{
			"@context": []string{"https://www.w3.org/ns/activitystreams", "https://w3id.org/security/v1"},
			"id":       id, "type": "Person", "preferredUsername": name, "name": strings.ToUpper(name),
			"summary": "<p>I am " + name + "</p>", "inbox": id + "/inbox", "outbox": id + "/outbox",
			"followers": id + "/followers", "following": id + "/following", "url": p.srv.URL + "/@" + name,
			"endpoints":                 map[string]string{"sharedInbox": p.srv.URL + "/inbox"},
			"manuallyApprovesFollowers": locked,
			"publicKey": map[string]string{"id": id + "#main-key", "owner": id,
				"publicKeyPem": string(pem.EncodeToMemory(&pem.Block{Type: "PUBLIC KEY", Bytes: pub}))},
		})
	})
	inbox := func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		var a map[string]any
		json.Unmarshal(body, &a)
		p.mu.Lock()
		p.got = append(p.got, peerDelivery{Activity: a, Signed: verifyAt(r, body)})
		p.mu.Unlock()
		w.WriteHeader(http.StatusAccepted)
	}
	mux.HandleFunc("POST /inbox", inbox)
	mux.HandleFunc("POST /users/{name}/inbox", inbox)
	p.srv = httptest.NewServer(mux)
	t.Cleanup(p.srv.Close)
	return p
}

// verifyAt checks a delivery's draft-cavage signature with the key of the
// actor it names (fetched from the sender as any server would).
func verifyAt(r *http.Request, body []byte) bool {
	v, err := httpsig.NewVerifier(r)
	if err != nil {
		return false
	}
	actor, _, _ := strings.Cut(v.KeyId(), "#")
	req, _ := http.NewRequest("GET", actor, nil)
	req.Header.Set("Accept", activityJSON)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return false
	}
	defer resp.Body.Close()
	var doc struct{ PublicKey struct{ PublicKeyPem string } }
	if json.NewDecoder(resp.Body).Decode(&doc) != nil {
		return false
	}
	block, _ := pem.Decode([]byte(doc.PublicKey.PublicKeyPem))
	if block == nil {
		return false
	}
	k, err := x509.ParsePKIXPublicKey(block.Bytes)
	if err != nil {
		return false
	}
	return v.Verify(k, httpsig.RSA_SHA256) == nil
}

func (p *fakePeer) count() {
	p.mu.Lock()
	p.fetches++
	p.mu.Unlock()
}

// host is the peer's host:port, the domain of its handles.
func (p *fakePeer) host() string { return strings.TrimPrefix(p.srv.URL, "http://") }

// handle is name's handle, name@host.
func (p *fakePeer) handle(name string) string { return name + "@" + p.host() }

// actor is name's actor id.
func (p *fakePeer) actor(name string) string { return p.srv.URL + "/users/" + name }

// addActor makes an actor called name.
func (p *fakePeer) addActor(name string) {
	k, err := rsa.GenerateKey(rand.Reader, 2048)
	if err != nil {
		p.t.Fatal(err)
	}
	p.mu.Lock()
	p.keys[name] = k
	p.mu.Unlock()
}

func (p *fakePeer) key(name string) *rsa.PrivateKey {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.keys[name]
}

// received are the activities the peer's inboxes received so far.
func (p *fakePeer) received() []peerDelivery {
	p.mu.Lock()
	defer p.mu.Unlock()
	return append([]peerDelivery(nil), p.got...)
}

// waitFor waits until the peer received an activity of type kind, and
// returns it.
func (p *fakePeer) waitFor(t testing.TB, kind string) peerDelivery {
	t.Helper()
	deadline := time.Now().Add(hangWait)
	for time.Now().Before(deadline) {
		for _, d := range p.received() {
			if d.Activity["type"] == kind {
				return d
			}
		}
		time.Sleep(20 * time.Millisecond)
	}
	t.Fatalf("the peer received no %s; it has %v", kind, p.received())
	return peerDelivery{}
}

// signOpts change how send signs, for the refusals.
type signOpts struct {
	// as signs with this actor's key (default: the activity's actor's).
	as string
	// date is the Date sent (default now).
	date time.Time
	// unsigned sends no signature.
	unsigned bool
	// tamper changes the body after signing.
	tamper bool
	// badDigest sends a Digest that is not the body's.
	badDigest bool
	// rfc9421 signs with RFC 9421 (Signature-Input, Content-Digest)
	// instead of draft-cavage.
	rfc9421 bool
}

// send POSTs activity as name (its actor set) to inbox (a URL), signed;
// it returns the status.
func (p *fakePeer) send(t testing.TB, inbox, name string, activity map[string]any, o ...signOpts) int {
	t.Helper()
	var opt signOpts
	if len(o) > 0 {
		opt = o[0]
	}
	if _, ok := activity["actor"]; !ok {
		activity["actor"] = p.actor(name)
	}
	if _, ok := activity["@context"]; !ok {
		activity["@context"] = "https://www.w3.org/ns/activitystreams"
	}
	body, err := json.Marshal(activity)
	if err != nil {
		t.Fatal(err)
	}
	req, err := http.NewRequest("POST", inbox, bytes.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/activity+json")
	date := opt.date
	if date.IsZero() {
		date = time.Now()
	}
	req.Header.Set("Date", date.UTC().Format(http.TimeFormat))
	req.Header.Set("Host", req.URL.Host)
	if opt.rfc9421 {
		signer := name
		if opt.as != "" {
			signer = opt.as
		}
		sum := sha256.Sum256(body)
		req.Header.Set("Content-Digest", "sha-256=:"+base64.StdEncoding.EncodeToString(sum[:])+":")
		params := `("@method" "@target-uri" "content-digest" "date");created=` + strconv.FormatInt(date.Unix(), 10) +
			`;keyid="` + p.actor(signer) + `#main-key";alg="rsa-v1_5-sha256"`
		base := `"@method": POST` + "\n" + `"@target-uri": ` + inbox + "\n" + `"content-digest": ` + req.Header.Get("Content-Digest") +
			"\n" + `"date": ` + req.Header.Get("Date") + "\n" + `"@signature-params": ` + params
		h := sha256.Sum256([]byte(base))
		sig, err := rsa.SignPKCS1v15(rand.Reader, p.key(signer), crypto.SHA256, h[:])
		if err != nil {
			t.Fatal(err)
		}
		req.Header.Set("Signature-Input", "sig1="+params)
		req.Header.Set("Signature", "sig1=:"+base64.StdEncoding.EncodeToString(sig)+":")
	} else if !opt.unsigned {
		signer := name
		if opt.as != "" {
			signer = opt.as
		}
		s, _, err := httpsig.NewSigner([]httpsig.Algorithm{httpsig.RSA_SHA256}, httpsig.DigestSha256,
			[]string{httpsig.RequestTarget, "host", "date", "digest"}, httpsig.Signature, 0)
		if err != nil {
			t.Fatal(err)
		}
		if err := s.SignRequest(p.key(signer), p.actor(signer)+"#main-key", req, body); err != nil {
			t.Fatal(err)
		}
	}
	if opt.badDigest {
		req.Header.Set("Digest", "SHA-256=47DEQpj8HBSa+/TImW+5JCeuQeRkm5NMpJWZG3hSuFU=")
	}
	if opt.tamper {
		body = bytes.Replace(body, []byte("}"), []byte(`,"x":1}`), 1)
		req.Body = io.NopCloser(bytes.NewReader(body))
		req.ContentLength = int64(len(body))
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	return resp.StatusCode
}

// fetch GETs url as an ActivityPub client, signed as name (draft-cavage
// over (request-target), host and date), and returns the status.
func (p *fakePeer) fetch(t testing.TB, url, name string) int {
	t.Helper()
	req, err := http.NewRequest("GET", url, nil)
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Accept", activityJSON)
	req.Header.Set("Date", time.Now().UTC().Format(http.TimeFormat))
	req.Header.Set("Host", req.URL.Host)
	s, _, err := httpsig.NewSigner([]httpsig.Algorithm{httpsig.RSA_SHA256}, httpsig.DigestSha256,
		[]string{httpsig.RequestTarget, "host", "date"}, httpsig.Signature, 0)
	if err != nil {
		t.Fatal(err)
	}
	if err := s.SignRequest(p.key(name), p.actor(name)+"#main-key", req, nil); err != nil {
		t.Fatal(err)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	return resp.StatusCode
}

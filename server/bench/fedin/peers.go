package main

import (
	"bytes"
	"crypto/rand"
	"crypto/rsa"
	"crypto/sha256"
	"crypto/x509"
	"encoding/base64"
	"encoding/json"
	"encoding/pem"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/go-fed/httpsig"
)

// peer is the remote ActivityPub servers the activities come from: real
// HTTP servers on loopback in this process, with -actors accounts, each
// with its own RSA-2048 key, up to actorsPerHost on each (the server
// looks up at most 60 unknown name@domain of one domain a minute; a port
// is a domain of its own here). It answers WebFinger and the actors'
// documents (with their public keys) and, in its inboxes, checks every
// Follow's Digest and signature (go-fed/httpsig, against the key of the
// server's actor that signed it) and accepts it with a signed Accept sent
// to the server's shared inbox, as Mastodon does for an account that does
// not approve its followers.
type peer struct {
	bases  []string // http://127.0.0.1:port of each host
	inbox  string   // the server's shared inbox, where the Accepts go
	srvs   []*http.Server
	keys   []*rsa.PrivateKey
	client *http.Client

	keyCache sync.Map     // the server's key id → *rsa.PublicKey
	accepted atomic.Int64 // Follows answered Accept, and the Accept taken (202)
	failures atomic.Int64
	mu       sync.Mutex
	lastErr  string
}

func startPeer(actors int, serverInbox string) (*peer, error) {
	p := &peer{inbox: serverInbox, keys: make([]*rsa.PrivateKey, actors), client: &http.Client{Timeout: 30 * time.Second}}
	var wg sync.WaitGroup
	var keyErr atomic.Value
	for i := range p.keys {
		wg.Go(func() {
			k, err := rsa.GenerateKey(rand.Reader, 2048)
			if err != nil {
				keyErr.Store(err)
			}
			p.keys[i] = k
		})
	}
	wg.Wait()
	if err, _ := keyErr.Load().(error); err != nil {
		return nil, err
	}
	mux := http.NewServeMux()
	mux.HandleFunc("GET /.well-known/webfinger", p.webfinger)
	mux.HandleFunc("GET /users/{name}", p.actorDoc)
	mux.HandleFunc("POST /inbox", p.takeActivity)
	mux.HandleFunc("POST /users/{name}/inbox", p.takeActivity)
	for range (actors + actorsPerHost - 1) / actorsPerHost {
		l, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			p.close()
			return nil, err
		}
		hs := &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second}
		p.bases = append(p.bases, "http://"+l.Addr().String())
		p.srvs = append(p.srvs, hs)
		go hs.Serve(l)
	}
	return p, nil
}

// actorsPerHost is how many accounts each host has.
const actorsPerHost = 50

func (p *peer) close() {
	for _, s := range p.srvs {
		s.Close()
	}
}

// base is actor i's server, http://127.0.0.1:port.
func (p *peer) base(i int) string { return p.bases[i/actorsPerHost] }

// host is actor i's host:port, the domain of its handle.
func (p *peer) host(i int) string { return strings.TrimPrefix(p.base(i), "http://") }

func (p *peer) name(i int) string      { return "r" + strconv.Itoa(i) }
func (p *peer) handle(i int) string    { return p.name(i) + "@" + p.host(i) }
func (p *peer) actor(i int) string     { return p.base(i) + "/users/" + p.name(i) }
func (p *peer) keyID(i int) string     { return p.actor(i) + "#main-key" }
func (p *peer) followers(i int) string { return p.actor(i) + "/followers" }

// index is the actor named name's index, -1 if there is none.
func (p *peer) index(name string) int {
	i, err := strconv.Atoi(strings.TrimPrefix(name, "r"))
	if !strings.HasPrefix(name, "r") || err != nil || i < 0 || i >= len(p.keys) {
		return -1
	}
	return i
}

func (p *peer) webfinger(w http.ResponseWriter, r *http.Request) {
	name, _, _ := strings.Cut(strings.TrimPrefix(r.URL.Query().Get("resource"), "acct:"), "@")
	i := p.index(name)
	if i < 0 {
		http.NotFound(w, r)
		return
	}
	w.Header().Set("Content-Type", "application/jrd+json")
	json.NewEncoder(w).Encode(map[string]any{"subject": "acct:" + p.handle(i),
		"links": []map[string]string{{"rel": "self", "type": "application/activity+json", "href": p.actor(i)}}})
}

func (p *peer) actorDoc(w http.ResponseWriter, r *http.Request) {
	i := p.index(r.PathValue("name"))
	if i < 0 {
		http.NotFound(w, r)
		return
	}
	pub, _ := x509.MarshalPKIXPublicKey(&p.keys[i].PublicKey)
	id := p.actor(i)
	w.Header().Set("Content-Type", "application/activity+json")
	json.NewEncoder(w).Encode(map[string]any{
		"@context": []string{"https://www.w3.org/ns/activitystreams", "https://w3id.org/security/v1"},
		"id":       id, "type": "Person", "preferredUsername": p.name(i), "name": "Remote " + p.name(i),
		"inbox": id + "/inbox", "outbox": id + "/outbox", "followers": p.followers(i), "following": id + "/following",
		"url": p.base(i) + "/@" + p.name(i), "endpoints": map[string]string{"sharedInbox": p.base(i) + "/inbox"},
		"manuallyApprovesFollowers": false,
		"publicKey": map[string]string{"id": p.keyID(i), "owner": id,
			"publicKeyPem": string(pem.EncodeToMemory(&pem.Block{Type: "PUBLIC KEY", Bytes: pub}))},
	})
}

// takeActivity takes what the server delivers; a Follow of one of the
// peer's actors is answered Accept, off the request.
func (p *peer) takeActivity(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(io.LimitReader(r.Body, 1<<20))
	var a struct {
		ID     string `json:"id"`
		Type   string `json:"type"`
		Actor  string `json:"actor"`
		Object any    `json:"object"`
	}
	if json.Unmarshal(body, &a) != nil {
		http.Error(w, "not JSON", http.StatusBadRequest)
		return
	}
	if a.Type != "Follow" {
		w.WriteHeader(http.StatusAccepted)
		return
	}
	// A Follow is checked as a peer checks it before it answers: the
	// Digest against the body, and the server's draft-cavage signature
	// against the key of the actor that signed it.
	if err := p.verify(r, body); err != nil {
		p.fail(fmt.Errorf("the Follow's signature: %w", err))
		http.Error(w, err.Error(), http.StatusUnauthorized)
		return
	}
	w.WriteHeader(http.StatusAccepted)
	obj, _ := a.Object.(string)
	i := p.index(obj[strings.LastIndexByte(obj, '/')+1:])
	if i < 0 || p.actor(i) != obj {
		return
	}
	go func() {
		accept := map[string]any{"@context": "https://www.w3.org/ns/activitystreams",
			"id": p.actor(i) + "/accepts/" + strconv.FormatInt(time.Now().UnixNano(), 36), "type": "Accept",
			"actor": p.actor(i), "to": []string{a.Actor},
			"object": map[string]any{"id": a.ID, "type": "Follow", "actor": a.Actor, "object": p.actor(i)}}
		body, _ := json.Marshal(accept)
		req, err := p.signed(i, body, time.Now())
		if err == nil {
			var resp *http.Response
			if resp, err = p.client.Do(req); err == nil {
				io.Copy(io.Discard, resp.Body)
				resp.Body.Close()
				if resp.StatusCode != http.StatusAccepted {
					err = fmt.Errorf("the server answered the Accept %s", resp.Status)
				}
			}
		}
		if err != nil {
			p.fail(err)
			return
		}
		p.accepted.Add(1)
	}()
}

func (p *peer) fail(err error) {
	p.failures.Add(1)
	p.mu.Lock()
	p.lastErr = err.Error()
	p.mu.Unlock()
}

// verify checks a request's Digest and signature; the signer's key is
// fetched from its actor (the server's, on loopback) once.
func (p *peer) verify(r *http.Request, body []byte) error {
	sum := sha256.Sum256(body)
	if r.Header.Get("Digest") != "SHA-256="+base64.StdEncoding.EncodeToString(sum[:]) {
		return errors.New("digest does not match")
	}
	v, err := httpsig.NewVerifier(r)
	if err != nil {
		return err
	}
	pub, err := p.serverKey(v.KeyId())
	if err != nil {
		return err
	}
	return v.Verify(pub, httpsig.RSA_SHA256)
}

func (p *peer) serverKey(keyID string) (*rsa.PublicKey, error) {
	if k, ok := p.keyCache.Load(keyID); ok {
		return k.(*rsa.PublicKey), nil
	}
	actor, _, _ := strings.Cut(keyID, "#")
	req, _ := http.NewRequest("GET", actor, nil)
	req.Header.Set("Accept", "application/activity+json")
	resp, err := p.client.Do(req)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	var doc struct{ PublicKey struct{ PublicKeyPem string } }
	if err := json.NewDecoder(resp.Body).Decode(&doc); err != nil {
		return nil, fmt.Errorf("the actor %s: %w", actor, err)
	}
	block, _ := pem.Decode([]byte(doc.PublicKey.PublicKeyPem))
	if block == nil {
		return nil, fmt.Errorf("no key at %s", actor)
	}
	k, err := x509.ParsePKIXPublicKey(block.Bytes)
	if err != nil {
		return nil, err
	}
	pub, ok := k.(*rsa.PublicKey)
	if !ok {
		return nil, fmt.Errorf("the key at %s is not RSA", actor)
	}
	p.keyCache.Store(keyID, pub)
	return pub, nil
}

// signed is a POST of body to the server's shared inbox, signed by actor i
// as Mastodon signs (draft-cavage rsa-sha256 over (request-target), host,
// date and digest, with go-fed/httpsig) at date.
func (p *peer) signed(i int, body []byte, date time.Time) (*http.Request, error) {
	req, err := http.NewRequest("POST", p.inbox, bytes.NewReader(body))
	if err != nil {
		return nil, err
	}
	req.Header.Set("Content-Type", "application/activity+json")
	req.Header.Set("Date", date.UTC().Format(http.TimeFormat))
	req.Header.Set("Host", req.URL.Host)
	s, _, err := httpsig.NewSigner([]httpsig.Algorithm{httpsig.RSA_SHA256}, httpsig.DigestSha256,
		[]string{httpsig.RequestTarget, "host", "date", "digest"}, httpsig.Signature, 0)
	if err != nil {
		return nil, err
	}
	if err := s.SignRequest(p.keys[i], p.keyID(i), req, body); err != nil {
		return nil, err
	}
	return req, nil
}

// waitAccepted waits until n Follows were accepted, and the Accepts taken.
func (p *peer) waitAccepted(n int, within time.Duration) error {
	deadline := time.Now().Add(within)
	for p.accepted.Load() < int64(n) {
		if time.Now().After(deadline) {
			p.mu.Lock()
			defer p.mu.Unlock()
			return fmt.Errorf("%d of %d follows accepted within %v (%d Accepts failed: %s)",
				p.accepted.Load(), n, within, p.failures.Load(), p.lastErr)
		}
		time.Sleep(20 * time.Millisecond)
	}
	return nil
}

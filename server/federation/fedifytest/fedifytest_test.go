package fedifytest

import (
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"
)

func getJSON(t *testing.T, url string) (int, map[string]any) {
	t.Helper()
	req, _ := http.NewRequest("GET", url, nil)
	req.Header.Set("Accept", "application/activity+json")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	var m map[string]any
	json.Unmarshal(b, &m)
	return resp.StatusCode, m
}

// TestPartnerActor starts the partner and reads a user's actor document and
// WebFinger answer as another server would.
func TestPartnerActor(t *testing.T) {
	p := Shared(t)
	u := p.NewUser(t, UserOptions{DisplayName: "Fedi Tester", Summary: "<p>bio</p>", Locked: true})
	if !strings.HasPrefix(u.ID, p.URL+"/users/") || u.Handle != u.Name+"@"+p.Host {
		t.Fatalf("user %+v on %s", u, p.URL)
	}
	status, actor := getJSON(t, u.ID)
	if status != 200 {
		t.Fatalf("GET actor: %d", status)
	}
	key, _ := actor["publicKey"].(map[string]any)
	pem, _ := key["publicKeyPem"].(string)
	endpoints, _ := actor["endpoints"].(map[string]any)
	if actor["type"] != "Person" || actor["id"] != u.ID || actor["inbox"] != u.Inbox ||
		actor["preferredUsername"] != u.Name || actor["name"] != "Fedi Tester" ||
		actor["manuallyApprovesFollowers"] != true || endpoints["sharedInbox"] != u.SharedInbox ||
		key["owner"] != u.ID || !strings.Contains(pem, "BEGIN PUBLIC KEY") {
		t.Fatalf("actor document: %v", actor)
	}
	status, jrd := getJSON(t, p.URL+"/.well-known/webfinger?resource=acct:"+u.Handle)
	links, _ := jrd["links"].([]any)
	var self string
	for _, l := range links {
		if m, _ := l.(map[string]any); m["rel"] == "self" {
			self, _ = m["href"].(string)
		}
	}
	if status != 200 || self != u.ID {
		t.Fatalf("webfinger: %d %v", status, jrd)
	}
}

// TestPartnerFederatesWithItself has two partner users follow and post to
// each other through Fedify's own HTTP path (signatures, inboxes), which
// the interop tests rely on, and checks a secure user's actor refuses an
// unsigned fetch.
func TestPartnerFederatesWithItself(t *testing.T) {
	p := Shared(t)
	a := p.NewUser(t, UserOptions{})
	b := p.NewUser(t, UserOptions{Locked: true, Secure: true})

	secret := b.Post(t, Post{Content: "<p>for signed readers</p>"})
	if status, _ := getJSON(t, secret.ID); status != 401 {
		t.Fatalf("unsigned GET of a secure user's post: %d, want 401", status)
	}
	if typ, obj := a.Fetch(t, secret.ID); typ != "Note" || obj["id"] != secret.ID {
		t.Fatalf("signed fetch of a secure user's post: %s %v", typ, obj)
	}

	since := p.Seq(t)
	a.Follow(t, b.ID)
	p.Wait(t, since, 10*time.Second, "the Follow", func(x Activity) bool {
		return x.Type == "Follow" && x.Actor == a.ID && x.ObjectID == b.ID && x.Signature != ""
	})
	if r := b.Relations(t); len(r.Pending) != 1 || r.Pending[0] != a.ID {
		t.Fatalf("locked user's pending requests: %+v", r)
	}
	b.Accept(t, a.ID)
	p.Wait(t, since, 10*time.Second, "the Accept", func(x Activity) bool { return x.Type == "Accept" && x.Actor == b.ID })
	if r := a.Relations(t); r.Following[b.ID] != "accepted" {
		t.Fatalf("follower's follows after Accept: %+v", r)
	}

	since = p.Seq(t)
	post := b.Post(t, Post{Content: "<p>hello #fedi</p>", Hashtags: []string{"fedi"}, Summary: "cw"})
	got := p.Wait(t, since, 10*time.Second, "the Create", func(x Activity) bool { return x.Type == "Create" && x.ObjectID == post.ID })
	if got.Content != "<p>hello #fedi</p>" || got.Summary != "cw" || got.AttributedTo != b.ID || len(got.Tags) != 1 || got.Tags[0].Name != "#fedi" {
		t.Fatalf("Create as received: %+v", got)
	}

	// One request signed with exactly RFC 9421, straight to a's inbox.
	r := b.Post(t, Post{Content: "<p>signed</p>", Signed: &Signed{Spec: "rfc9421", Inbox: a.Inbox}})
	if r.Status != 202 || r.Headers["signature-input"] == "" {
		t.Fatalf("rfc9421-signed Create: %d %s %v", r.Status, r.Body, r.Headers)
	}
	got = p.Wait(t, since, 10*time.Second, "the RFC 9421 Create", func(x Activity) bool { return x.Type == "Create" && x.ObjectID == r.ID })
	if got.Signature != "rfc9421" || got.Recipient != a.Name {
		t.Fatalf("rfc9421 Create as received: %+v", got)
	}
	if _, unverified := p.Inbox(t, 0); len(unverified) != 0 {
		t.Fatalf("Fedify refused: %+v", unverified)
	}
}

// TestPartnerForget: Forget drops the cached signature spec of an origin.
func TestPartnerForget(t *testing.T) {
	p := Shared(t)
	a := p.NewUser(t, UserOptions{})
	b := p.NewUser(t, UserOptions{})
	a.Follow(t, b.ID)
	if spec := p.SigSpec(t, p.URL); spec != "rfc9421" {
		t.Fatalf("spec after a delivery to itself: %q", spec)
	}
	p.Forget(t, p.URL)
	if spec := p.SigSpec(t, p.URL); spec != "" {
		t.Fatalf("spec after Forget: %q", spec)
	}
}

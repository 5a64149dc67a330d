package main

import (
	"context"
	"html"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	gomastodon "github.com/mattn/go-mastodon"

	"microblog/server/mastodon"
)

// The acceptance of the Mastodon API (CONTRACT §13) by a client library no
// one here wrote, github.com/mattn/go-mastodon, as a Go program would use
// it: it registers an app, its user logs in on our authorize page (the
// out-of-band flow, and no PKCE, as go-mastodon's AuthURI asks), and it
// calls the API and its streaming through the library's own methods.
// web/e2e/mastodon.test.mjs does the same, for every area, with masto.js.

// oobRedirect is OAuth's out-of-band redirect: the page shows the code.
const oobRedirect = "urn:ietf:wg:oauth:2.0:oob"

var (
	formTag     = regexp.MustCompile(`(?is)<form\b[^>]*>`)
	inputTag    = regexp.MustCompile(`(?is)<input\b[^>]*>`)
	attrPattern = regexp.MustCompile(`(?s)([\w-]+)\s*=\s*(?:"([^"]*)"|'([^']*)')`)
	oobCode     = regexp.MustCompile(`(?s)<code id="code">([^<]+)</code>`)
	stripTags   = regexp.MustCompile(`<[^>]*>`)
)

// tagAttrs reads an HTML tag's quoted attributes.
func tagAttrs(tag string) map[string]string {
	out := map[string]string{}
	for _, m := range attrPattern.FindAllStringSubmatch(tag, -1) {
		out[strings.ToLower(m[1])] = html.UnescapeString(m[2] + m[3])
	}
	return out
}

// oobAuthorizeCode logs name in on GET /oauth/authorize's page as a browser
// without JavaScript would (the form's hidden fields, username, password,
// decision=approve, the cookies the page set) and returns the code the
// out-of-band page shows.
func (ts *testServer) oobAuthorizeCode(t testing.TB, app *gomastodon.Application, name, scopes string) string {
	t.Helper()
	jar := &cookieJar{}
	client := &http.Client{Jar: jar, CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	page := app.AuthURI
	resp, err := client.Get(page)
	if err != nil {
		t.Fatalf("GET the authorize page: %v", err)
	}
	body := string(readAll(t, resp))
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("GET %s: %d %.300s", page, resp.StatusCode, body)
	}
	form := formTag.FindString(body)
	if form == "" {
		t.Fatalf("the authorize page has no form: %.500s", body)
	}
	action, err := url.Parse(page)
	if err != nil {
		t.Fatal(err)
	}
	if a := tagAttrs(form)["action"]; a != "" {
		if action, err = action.Parse(a); err != nil {
			t.Fatalf("the form's action %q: %v", a, err)
		}
	}
	fields := url.Values{"username": {name}, "password": {testPassword}, "decision": {"approve"}}
	for _, input := range inputTag.FindAllString(body, -1) {
		if a := tagAttrs(input); a["type"] == "hidden" && a["name"] != "" {
			fields.Set(a["name"], a["value"])
		}
	}
	req, _ := http.NewRequest(http.MethodPost, action.String(), strings.NewReader(fields.Encode()))
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.Header.Set("Origin", ts.URL)
	req.Header.Set("Referer", page)
	resp, err = client.Do(req)
	if err != nil {
		t.Fatalf("POST the authorize form: %v", err)
	}
	body = string(readAll(t, resp))
	m := oobCode.FindStringSubmatch(body)
	if resp.StatusCode != http.StatusOK || m == nil {
		t.Fatalf("approving for the out-of-band redirect shows the code in <code id=\"code\">: %d %.500s", resp.StatusCode, body)
	}
	return strings.TrimSpace(html.UnescapeString(m[1]))
}

// cookieJar keeps every cookie the test server sets, whatever its path.
type cookieJar struct{ cookies []*http.Cookie }

func (j *cookieJar) SetCookies(_ *url.URL, cookies []*http.Cookie) {
	j.cookies = append(j.cookies, cookies...)
}
func (j *cookieJar) Cookies(*url.URL) []*http.Cookie { return j.cookies }

// goMastodonClient registers a user, an app through go-mastodon, logs the
// user in on the authorize page and returns the library's client.
func (ts *testServer) goMastodonClient(t testing.TB, ctx context.Context, name string) (*gomastodon.Client, int64) {
	t.Helper()
	_, uid := ts.register(t, name)
	app, err := gomastodon.RegisterApp(ctx, &gomastodon.AppConfig{Server: ts.URL, ClientName: "go-mastodon acceptance", Scopes: "read write follow", Website: "https://example.org"})
	if err != nil {
		t.Fatalf("go-mastodon RegisterApp: %v", err)
	}
	if app.ClientID == "" || app.ClientSecret == "" || app.RedirectURI != oobRedirect {
		t.Fatalf("the app: %+v", app)
	}
	c := gomastodon.NewClient(&gomastodon.Config{Server: ts.URL, ClientID: app.ClientID, ClientSecret: app.ClientSecret})
	code := ts.oobAuthorizeCode(t, app, name, "read write follow")
	if err := c.GetUserAccessToken(ctx, code, oobRedirect); err != nil {
		t.Fatalf("go-mastodon GetUserAccessToken: %v", err)
	}
	if !strings.HasPrefix(c.Config.AccessToken, mastodon.TokenPrefix) {
		t.Fatalf("access token %q does not start with %s", c.Config.AccessToken, mastodon.TokenPrefix)
	}
	return c, uid
}

// TestMastodonGoClient drives the Mastodon API with go-mastodon: account,
// statuses, timeline, favourite, reblog, notifications, search, context,
// and one update on its WebSocket user stream.
func TestMastodonGoClient(t *testing.T) {
	parallel(t)
	ts := newTestServer(t)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	alice, aliceID := ts.goMastodonClient(t, ctx, "alice")
	bob, bobID := ts.goMastodonClient(t, ctx, "bob")

	me, err := alice.GetAccountCurrentUser(ctx)
	if err != nil {
		t.Fatalf("GetAccountCurrentUser: %v", err)
	}
	if me.Username != "alice" || me.ID != goID(aliceID) || me.Acct != "alice" {
		t.Fatalf("verify_credentials: %+v", me)
	}
	if _, err := bob.AccountFollow(ctx, me.ID); err != nil {
		t.Fatalf("AccountFollow: %v", err)
	}

	s, err := alice.PostStatus(ctx, &gomastodon.Toot{Status: "hello from #golang", Visibility: "public"})
	if err != nil {
		t.Fatalf("PostStatus: %v", err)
	}
	tagLink := `<a href="` + ts.URL + `/tags/golang" class="mention hashtag" rel="tag">`
	if !strings.Contains(s.Content, tagLink) || stripTags.ReplaceAllString(s.Content, "") != "hello from #golang" {
		t.Errorf("content %q: want the text in <p> with the tag as Mastodon's link %s", s.Content, tagLink)
	}
	if s.Account.ID != me.ID || s.Visibility != "public" {
		t.Errorf("posted status: %+v", s)
	}

	home, err := bob.GetTimelineHome(ctx, &gomastodon.Pagination{Limit: 5})
	if err != nil {
		t.Fatalf("GetTimelineHome: %v", err)
	}
	if !slices.ContainsFunc(home, func(x *gomastodon.Status) bool { return x.ID == s.ID }) {
		t.Errorf("bob's home %v lacks alice's status %s", goStatusIDs(home), s.ID)
	}

	fav, err := bob.Favourite(ctx, s.ID)
	if err != nil {
		t.Fatalf("Favourite: %v", err)
	}
	if fav.Favourited != true || fav.FavouritesCount != 1 {
		t.Errorf("after Favourite: favourited %v, count %d", fav.Favourited, fav.FavouritesCount)
	}
	rb, err := bob.Reblog(ctx, s.ID)
	if err != nil {
		t.Fatalf("Reblog: %v", err)
	}
	if rb.Reblog == nil || rb.Reblog.ID != s.ID || rb.Account.ID != goID(bobID) {
		t.Errorf("Reblog answers bob's reblog of the status: %+v", rb)
	}

	reply, err := bob.PostStatus(ctx, &gomastodon.Toot{Status: "@alice nice", InReplyToID: s.ID})
	if err != nil {
		t.Fatalf("PostStatus reply: %v", err)
	}
	sc, err := alice.GetStatusContext(ctx, s.ID)
	if err != nil {
		t.Fatalf("GetStatusContext: %v", err)
	}
	if len(sc.Ancestors) != 0 || len(sc.Descendants) != 1 || sc.Descendants[0].ID != reply.ID {
		t.Errorf("context: ancestors %v, descendants %v; want the reply %s", goStatusIDs(sc.Ancestors), goStatusIDs(sc.Descendants), reply.ID)
	}

	var notes []*gomastodon.Notification
	for end := time.Now().Add(hangWait); ; time.Sleep(50 * time.Millisecond) {
		if notes, err = alice.GetNotifications(ctx, nil); err != nil {
			t.Fatalf("GetNotifications: %v", err)
		}
		if len(notes) >= 4 || time.Now().After(end) {
			break
		}
	}
	var types []string
	for _, n := range notes {
		if n.Account.ID != goID(bobID) {
			t.Errorf("notification %s from %s, want bob", n.Type, n.Account.ID)
		}
		types = append(types, n.Type)
	}
	slices.Sort(types)
	if !slices.Equal(types, []string{"favourite", "follow", "mention", "reblog"}) {
		t.Errorf("alice's notifications %v, want favourite, follow (bob followed her), mention, reblog", types)
	}

	// Search reads the archive, which takes a post in the background: a
	// busy machine may need a moment.
	var res *gomastodon.Results
	for end := time.Now().Add(30 * time.Second); ; time.Sleep(50 * time.Millisecond) {
		if res, err = bob.Search(ctx, "golang", false); err != nil {
			t.Fatalf("Search: %v", err)
		}
		if len(res.Statuses) > 0 || time.Now().After(end) {
			break
		}
	}
	if !slices.ContainsFunc(res.Statuses, func(x *gomastodon.Status) bool { return x.ID == s.ID }) ||
		!slices.ContainsFunc(res.Hashtags, func(x *gomastodon.Tag) bool { return x.Name == "golang" }) {
		t.Errorf("search golang: statuses %v, hashtags %+v", goStatusIDs(res.Statuses), res.Hashtags)
	}

	ts.goMastodonStreamsUpdate(t, ctx, alice, bob)
}

// goMastodonStreamsUpdate opens from's WebSocket user stream with
// go-mastodon and waits for a status of author's on it. go-mastodon
// subscribes as it connects, in the background, so author posts again
// each second until one of its statuses comes (a status posted before the
// subscription is in place is not expected on the stream).
func (ts *testServer) goMastodonStreamsUpdate(t *testing.T, ctx context.Context, author, from *gomastodon.Client) {
	ctx, cancel := context.WithCancel(ctx)
	stream, err := from.NewWSClient().StreamingWSUser(ctx)
	if err != nil {
		t.Fatalf("StreamingWSUser: %v", err)
	}
	defer func() {
		cancel()
		go func() { // go-mastodon sends its last error event as it stops
			for range stream {
			}
		}()
	}()
	posted := map[gomastodon.ID]bool{}
	tick := time.NewTicker(time.Second)
	defer tick.Stop()
	for {
		s, err := author.PostStatus(ctx, &gomastodon.Toot{Status: "live " + strconv.Itoa(len(posted))})
		if err != nil {
			t.Fatalf("PostStatus: %v", err)
		}
		posted[s.ID] = true
	wait:
		for {
			select {
			case ev, ok := <-stream:
				if !ok {
					t.Fatal("the user stream closed before a status came")
				}
				switch e := ev.(type) {
				case *gomastodon.ErrorEvent:
					t.Fatalf("the user stream: %v", e.Err)
				case *gomastodon.UpdateEvent:
					if posted[e.Status.ID] {
						if e.Status.Account.ID == "" || !strings.HasPrefix(e.Status.Content, "<p>live ") {
							t.Errorf("the streamed status: %+v", e.Status)
						}
						return
					}
				}
			case <-tick.C:
				break wait
			case <-ctx.Done():
				t.Fatal("no status came on the user stream within the test's 30 s")
			}
		}
	}
}

// goID is a uid as go-mastodon's account id.
func goID(uid int64) gomastodon.ID { return gomastodon.ID(strconv.FormatInt(uid, 10)) }

// goStatusIDs lists statuses' ids for a failure message.
func goStatusIDs(list []*gomastodon.Status) []gomastodon.ID {
	ids := make([]gomastodon.ID, len(list))
	for i, s := range list {
		ids[i] = s.ID
	}
	return ids
}

// TestMastodonPyClient: Mastodon.py (Debian's python3-mastodon), a library
// many bots are written with, drives the API: it reads the version at
// /api/v1/instance/ and refuses what an older server lacks (lookup, edits,
// markers, streaming), and it streams over server-sent events. The script
// (testdata/mastodonpy_client.py) says what it checked.
func TestMastodonPyClient(t *testing.T) {
	parallel(t)
	const python = "/usr/bin/python3" // Debian's packages load under it alone
	if err := exec.Command(python, "-c", "import mastodon").Run(); err != nil {
		t.Fatalf("Mastodon.py is missing (%v): make deps-test installs Debian's python3-mastodon", err)
	}
	ts := newTestServer(t)
	reader, _ := ts.mastodonUser(t, "pyreader", "")
	author, _ := ts.mastodonUser(t, "pyauthor", "")
	ctx, cancel := context.WithTimeout(context.Background(), 3*hangWait)
	defer cancel()
	cmd := exec.CommandContext(ctx, python, "testdata/mastodonpy_client.py")
	cmd.Env = append(os.Environ(), "BASE_URL="+ts.URL, "READER_TOKEN="+reader, "AUTHOR_TOKEN="+author)
	out, err := cmd.CombinedOutput()
	if err != nil || !strings.Contains(string(out), "all done") {
		t.Fatalf("Mastodon.py: %v\n%s", err, out)
	}
	t.Logf("Mastodon.py:\n%s", out)
}

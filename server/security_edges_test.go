package main

import (
	"io"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"microblog/store"
)

// The findings of the security probe at the HTTP edges: each
// test here failed before its fix.

// viaHTTPS is the header a trusted proxy in front of a TLS listener adds.
var viaHTTPS = http.Header{"X-Forwarded-Proto": {"https"}}

// with is h with more header lines.
func with(h http.Header, kv ...string) http.Header {
	out := h.Clone()
	if out == nil {
		out = http.Header{}
	}
	for i := 0; i < len(kv); i += 2 {
		out.Add(kv[i], kv[i+1])
	}
	return out
}

// TestSecurityOriginHasAScheme: on an HTTPS setup a cookie-authenticated
// write or live feed from http://<the same host> is another origin, and so
// is https:// on a plain one.
func TestSecurityOriginHasAScheme(t *testing.T) {
	parallel(t)
	ts := newTestServer(t, "MICROBLOG_TRUSTED_PROXIES=127.0.0.1")
	host := strings.TrimPrefix(ts.URL, "http://")
	login := ts.do(t, "POST", "/api/v1/users", "", map[string]string{"username": "alice", "password": testPassword}, viaHTTPS)
	login.Body.Close()
	token := sessionCookies(login)[hostCookieName]
	if token == nil {
		t.Fatalf("no %s cookie over HTTPS", hostCookieName)
	}
	for _, tc := range []struct {
		name   string
		header http.Header
		origin string
		want   int
	}{
		{"HTTPS, same origin", viaHTTPS, "https://" + host, 200},
		{"HTTPS, the plain-HTTP origin of the same host", viaHTTPS, "http://" + host, 403},
		{"plain, same origin", nil, "http://" + host, 200},
		{"plain, the HTTPS origin of the same host", nil, "https://" + host, 403},
	} {
		h := with(tc.header, "Origin", tc.origin, "Cookie", hostCookieName+"="+token.Value, "Cookie", cookieName+"="+token.Value)
		resp := ts.do(t, "PATCH", "/api/v1/me", "", map[string]string{"bio": tc.name}, h)
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != tc.want || tc.want == 403 && errorCode(t, body) != "cross_origin" {
			t.Errorf("cookie write, %s: %d %s, want %d", tc.name, resp.StatusCode, body, tc.want)
		}
		switch conn, resp, body := ts.dialWSStatus(t, h); {
		case tc.want == 200 && conn == nil:
			t.Errorf("/ws, %s: %d %s, want an upgrade", tc.name, resp.StatusCode, body)
		case tc.want == 403 && (conn != nil || resp.StatusCode != 403):
			t.Errorf("/ws, %s: upgraded, want 403", tc.name)
		}
	}
}

// TestSecurityOnlyHostCookieOverHTTPS: on an HTTPS setup the plain auth
// cookie, which a sibling subdomain or a plain-HTTP page can set, is not a
// session; __Host-auth is.
func TestSecurityOnlyHostCookieOverHTTPS(t *testing.T) {
	parallel(t)
	ts := newTestServer(t, "MICROBLOG_TRUSTED_PROXIES=127.0.0.1")
	token, _ := ts.register(t, "alice")
	for _, tc := range []struct {
		name, cookie string
		header       http.Header
		want         int
	}{
		{"HTTPS, __Host-auth", hostCookieName, viaHTTPS, 200},
		{"HTTPS, a planted auth", cookieName, viaHTTPS, 401},
		{"plain, auth", cookieName, nil, 200},
	} {
		resp := ts.do(t, "GET", "/api/v1/me", "", nil, with(tc.header, "Cookie", tc.cookie+"="+token))
		resp.Body.Close()
		if resp.StatusCode != tc.want {
			t.Errorf("%s: GET /me %d, want %d", tc.name, resp.StatusCode, tc.want)
		}
	}
	// A planted cookie does not make the page a signed-in one either.
	page := ts.do(t, "GET", "/", "", nil, with(viaHTTPS, "Cookie", cookieName+"="+token))
	b, _ := io.ReadAll(page.Body)
	page.Body.Close()
	if strings.Contains(string(b), sessionCookieMark) {
		t.Errorf("over HTTPS the page took the plain auth cookie for a session")
	}
}

// TestSecurityHSTS: answers over HTTPS tell the browser to keep to HTTPS;
// plain ones cannot.
func TestSecurityHSTS(t *testing.T) {
	parallel(t)
	ts := newTestServer(t, "MICROBLOG_TRUSTED_PROXIES=127.0.0.1")
	for _, path := range []string{"/", "/api/v1/timelines/public", "/api/v1/no/such/thing"} {
		resp := ts.do(t, "GET", path, "", nil, viaHTTPS)
		resp.Body.Close()
		if v := resp.Header.Get("Strict-Transport-Security"); !strings.HasPrefix(v, "max-age=") || v == "max-age=0" {
			t.Errorf("GET %s over HTTPS: Strict-Transport-Security %q", path, v)
		}
		resp = ts.do(t, "GET", path, "", nil, nil)
		resp.Body.Close()
		if v := resp.Header.Get("Strict-Transport-Security"); v != "" {
			t.Errorf("GET %s over plain HTTP: Strict-Transport-Security %q", path, v)
		}
	}
}

// TestSecurityUnknownClientBehindProxy: a trusted proxy that names no
// usable client address (no X-Forwarded-For, only X-Real-IP or Forwarded, a
// word) forwards a client that is unknown: not the proxy, so /metrics stays
// shut and its rate limits are not the proxy's. An entry with a port is
// read as the address it holds.
func TestSecurityUnknownClientBehindProxy(t *testing.T) {
	parallel(t)
	ts := newTestServer(t, "MICROBLOG_TRUSTED_PROXIES=127.0.0.1", "MICROBLOG_RATE_LIMITS=signup=1/1h")
	for _, tc := range []struct {
		name   string
		header http.Header
		want   int
	}{
		{"no X-Forwarded-For", nil, 403},
		{"only X-Real-IP", http.Header{"X-Real-Ip": {"10.1.2.3"}}, 403},
		{"only Forwarded", http.Header{"Forwarded": {"for=10.1.2.3"}}, 403},
		{"a word", http.Header{"X-Forwarded-For": {"unknown"}}, 403},
		{"a private address and a port", http.Header{"X-Forwarded-For": {"10.1.2.3:4567"}}, 200},
		{"a public address and a port", http.Header{"X-Forwarded-For": {"203.0.113.9:4567"}}, 403},
		{"an IPv6 loopback and a port", http.Header{"X-Forwarded-For": {"[::1]:4567"}}, 200},
		{"an IPv6 public address in brackets", http.Header{"X-Forwarded-For": {"[2001:db8::1]"}}, 403},
	} {
		resp := ts.do(t, "GET", "/metrics", "", nil, tc.header)
		resp.Body.Close()
		if resp.StatusCode != tc.want {
			t.Errorf("/metrics, %s: %d, want %d", tc.name, resp.StatusCode, tc.want)
		}
	}
	for _, tc := range []struct {
		name, user, xff string
		want            int
	}{
		{"a client with a port", "u1", "203.0.113.1:1111", 201},
		{"another client with a port", "u2", "203.0.113.2:1111", 201},
		{"the first again, another port", "u3", "203.0.113.1:2222", 429},
		{"a client the proxy does not name", "u4", "", 201},
		{"the proxy's own machine", "u5", "127.0.0.1", 201},
		{"another client the proxy does not name", "u6", "", 429},
	} {
		h := http.Header{}
		if tc.xff != "" {
			h.Set("X-Forwarded-For", tc.xff)
		}
		resp := ts.do(t, "POST", "/api/v1/users", "", map[string]string{"username": tc.user, "password": testPassword}, h)
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != tc.want {
			t.Errorf("sign-up, %s: %d %s, want %d", tc.name, resp.StatusCode, body, tc.want)
		}
	}
}

// TestSecurityJSONErrorsSayNoMore: a body that is not JSON, or nests too
// deeply, is told so without the decoder's own words.
func TestSecurityJSONErrorsSayNoMore(t *testing.T) {
	parallel(t)
	ts := newTestServer(t)
	for _, body := range []string{
		strings.Repeat("[", 20000) + strings.Repeat("]", 20000),
		strings.Repeat(`{"a":`, 10001) + "1" + strings.Repeat("}", 10001),
		`{"username": x}`,
		`{"username": "a"`,
		``,
	} {
		status, b := ts.call(t, "POST", "/api/v1/sessions", "", body)
		msg := string(b)
		if status != 400 || errorCode(t, b) != "invalid_json" {
			t.Errorf("%.20q: %d %s, want 400 invalid_json", body, status, b)
		}
		for _, inner := range []string{"json:", "max depth", "invalid character", "looking for", "unexpected EOF"} {
			if strings.Contains(msg, inner) {
				t.Errorf("%.20q: the message tells the decoder's %q: %s", body, inner, b)
			}
		}
	}
}

// encodeURIComponent escapes s as the front ends' encodeURIComponent does
// for the characters of these tests.
func encodeURIComponent(s string) string { return strings.ReplaceAll(url.QueryEscape(s), "+", "%20") }

// TestSecurityTopicsWithSlashAreReachable: a topic holding a "/" (or any
// character a client escapes where Go would not, such as + & :) is listed
// by search/tags, and its page, linked as the front ends link it, lists its
// posts.
func TestSecurityTopicsWithSlashAreReachable(t *testing.T) {
	parallel(t)
	ts := newTestServer(t)
	tok, _ := ts.register(t, "alice")
	for _, tag := range []string{"a/b", "C++", "Q&A", "10:30", "50%", "话题/讨论"} {
		p := ts.post(t, tok, "#"+tag+"# is a topic", 0)
		if len(p.Tags) != 1 || p.Tags[0] != tag {
			t.Fatalf("%q: tags %v", tag, p.Tags)
		}
		var found store.Page[store.TagCount]
		ts.getJSON(t, "", "/api/v1/search/tags?q="+url.QueryEscape(tag), &found)
		if len(found.Items) == 0 || found.Items[0].Tag != store.TagKey(tag) {
			t.Errorf("search/tags?q=%s: %+v", tag, found.Items)
		}
		var page store.Page[store.Post]
		ts.getJSON(t, "", "/api/v1/tags/"+encodeURIComponent(tag)+"/posts", &page)
		if len(page.Items) != 1 || page.Items[0].ID != p.ID {
			t.Errorf("the page of %q lists %d posts, want its post", tag, len(page.Items))
		}
	}
}

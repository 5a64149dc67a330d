package api

import (
	"bytes"
	"compress/gzip"
	"io"
	"io/fs"
	"maps"
	"net/http"
	"net/http/httptest"
	"net/url"
	"path"
	"regexp"
	"slices"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/labstack/echo/v4"

	"microblog/mobile"
	"microblog/web"
)

// staticServer serves both front ends the way frontEndRoutes does by
// default (bundled), without Redis; modulesServer as MICROBLOG_BUNDLE=off
// does. Both serve the process's one preparation of each (webSite,
// mobileSite), as the servers do: preparing them again for each test took
// most of the package's CPU.
func staticServer(t *testing.T) *httptest.Server { return sitesServer(t, true) }

func modulesServer(t *testing.T) *httptest.Server { return sitesServer(t, false) }

// sitesServer serves both front ends, bundled or module by module.
func sitesServer(t *testing.T, bundle bool) *httptest.Server {
	t.Helper()
	e := echo.New()
	readOnly := []string{http.MethodGet, http.MethodHead}
	e.Match(readOnly, "/m/*", mobileSite(bundle).serve)
	e.Match(readOnly, "/*", webSite(bundle).serve)
	ts := httptest.NewServer(e)
	t.Cleanup(ts.Close)
	return ts
}

// get requests rawURL with headers given as "Name: value" and returns the
// response with its body read; it follows no redirects and never
// decompresses on its own.
func get(t *testing.T, method, rawURL string, headers ...string) (*http.Response, []byte) {
	t.Helper()
	req, err := http.NewRequest(method, rawURL, nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, h := range headers {
		k, v, _ := strings.Cut(h, ": ")
		req.Header.Add(k, v)
	}
	client := &http.Client{
		Transport:     &http.Transport{DisableCompression: true},
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
	}
	resp, err := client.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return resp, body
}

func gunzip(t *testing.T, b []byte) []byte {
	t.Helper()
	zr, err := gzip.NewReader(bytes.NewReader(b))
	if err != nil {
		t.Fatalf("not gzip: %v", err)
	}
	out, err := io.ReadAll(zr)
	if err != nil {
		t.Fatalf("bad gzip: %v", err)
	}
	return out
}

func varies(resp *http.Response, header string) bool {
	for _, v := range resp.Header.Values("Vary") {
		for _, f := range strings.Split(v, ",") {
			if strings.EqualFold(strings.TrimSpace(f), header) {
				return true
			}
		}
	}
	return false
}

// versionedRef finds the versioned references in a served page, style
// sheet or module: the first group is the URL with its ?v=.
var versionedRef = regexp.MustCompile(`(?:href="|src="|url\(["']?|from\s*['"]|import\s*\(?\s*['"])([^"')]+\?v=[0-9a-f]+)`)

func TestStaticGzip(t *testing.T) {
	parallel(t)
	ts := staticServer(t)
	for _, p := range []string{"/", "/u/alice", "/core.css", "/js/app.js", "/js/core/feed.js", "/favicon.svg", "/m/", "/m/sw.js", "/m/manifest.webmanifest", "/m/js/core/api.js"} {
		plain, want := get(t, "GET", ts.URL+p)
		zipped, body := get(t, "GET", ts.URL+p, "Accept-Encoding: gzip, deflate, br")
		if plain.StatusCode != 200 || zipped.StatusCode != 200 {
			t.Fatalf("%s: %d, %d", p, plain.StatusCode, zipped.StatusCode)
		}
		if plain.Header.Get("Content-Encoding") != "" {
			t.Errorf("%s: compressed for a client that did not ask", p)
		}
		if zipped.Header.Get("Content-Encoding") != "gzip" {
			t.Errorf("%s: not gzipped for a client that accepts gzip", p)
			continue
		}
		if got := gunzip(t, body); !bytes.Equal(got, want) {
			t.Errorf("%s: gzipped bytes do not decompress to the plain ones", p)
		}
		if len(body) >= len(want) {
			t.Errorf("%s: gzip is %d bytes, plain %d", p, len(body), len(want))
		}
		if zipped.ContentLength != int64(len(body)) {
			t.Errorf("%s: Content-Length %d for %d bytes", p, zipped.ContentLength, len(body))
		}
		if !varies(plain, "Accept-Encoding") || !varies(zipped, "Accept-Encoding") {
			t.Errorf("%s: no Vary: Accept-Encoding", p)
		}
		if plain.Header.Get("ETag") == zipped.Header.Get("ETag") {
			t.Errorf("%s: the plain and gzipped bodies share the ETag %s", p, plain.Header.Get("ETag"))
		}
		if ct := zipped.Header.Get("Content-Type"); ct != plain.Header.Get("Content-Type") || ct == "" {
			t.Errorf("%s: Content-Type %q gzipped, %q plain", p, ct, plain.Header.Get("Content-Type"))
		}
	}
	// PNGs are compressed already.
	resp, _ := get(t, "GET", ts.URL+"/m/icons/icon-192.png", "Accept-Encoding: gzip")
	if resp.StatusCode != 200 || resp.Header.Get("Content-Encoding") != "" || resp.Header.Get("Content-Type") != "image/png" {
		t.Errorf("icon-192.png: %d, encoding %q, type %q", resp.StatusCode, resp.Header.Get("Content-Encoding"), resp.Header.Get("Content-Type"))
	}
	if ct := get2(t, ts.URL+"/m/manifest.webmanifest").Header.Get("Content-Type"); ct != "application/manifest+json" {
		t.Errorf("manifest Content-Type %q", ct)
	}
	// HEAD tells the size of what GET would send, and sends nothing.
	for _, enc := range []string{"", "gzip"} {
		g, body := get(t, "GET", ts.URL+"/js/app.js", "Accept-Encoding: "+enc)
		h, none := get(t, "HEAD", ts.URL+"/js/app.js", "Accept-Encoding: "+enc)
		if h.StatusCode != 200 || len(none) != 0 || h.ContentLength != int64(len(body)) || h.Header.Get("ETag") != g.Header.Get("ETag") {
			t.Errorf("HEAD (Accept-Encoding %q): %d, %d bytes, Content-Length %d for %d", enc, h.StatusCode, len(none), h.ContentLength, len(body))
		}
	}
}

func get2(t *testing.T, rawURL string) *http.Response {
	resp, _ := get(t, "GET", rawURL)
	return resp
}

func TestAcceptsGzip(t *testing.T) {
	parallel(t)
	for header, want := range map[string]bool{
		"":                      false,
		"gzip":                  true,
		"GZIP":                  true,
		"gzip, deflate, br":     true,
		"br;q=1.0, gzip;q=0.8":  true,
		"gzip;q=0":              false,
		"gzip; q=0.000":         false,
		"identity":              false,
		"*":                     true,
		"*;q=0":                 false,
		"*, gzip;q=0":           false,
		"gzip;q=0, *":           false,
		"deflate, x-gzip;q=0.5": true,
	} {
		if got := acceptsGzip(header); got != want {
			t.Errorf("acceptsGzip(%q) = %v", header, got)
		}
	}
}

func TestStaticCacheHeaders(t *testing.T) {
	parallel(t)
	ts := staticServer(t)
	// Pages and the service worker are revalidated every time.
	for _, p := range []string{"/", "/u/alice", "/p/42", "/m/", "/m/sw.js", "/m/manifest.webmanifest"} {
		resp, _ := get(t, "GET", ts.URL+p)
		if resp.StatusCode != 200 || resp.Header.Get("Cache-Control") != "no-cache" || resp.Header.Get("ETag") == "" {
			t.Errorf("%s: %d, Cache-Control %q, ETag %q", p, resp.StatusCode, resp.Header.Get("Cache-Control"), resp.Header.Get("ETag"))
		}
	}
	if got := get2(t, ts.URL+"/m/sw.js").Header.Get("Service-Worker-Allowed"); got != "/m/" {
		t.Errorf("sw.js: Service-Worker-Allowed %q", got)
	}
	// The page's assets carry their version and may be kept for a year.
	_, page := get(t, "GET", ts.URL+"/")
	refs := versionedRef.FindAllSubmatch(page, -1)
	if len(refs) < 3 { // the icon (in <link> and in the style sheet, now in the page), the app
		t.Fatalf("index.html has %d versioned references:\n%s", len(refs), page)
	}
	for _, m := range refs {
		u := ts.URL + string(m[1])
		resp, _ := get(t, "GET", u)
		if resp.StatusCode != 200 || resp.Header.Get("Cache-Control") != "public, max-age=31536000, immutable" {
			t.Errorf("%s: %d, Cache-Control %q", m[1], resp.StatusCode, resp.Header.Get("Cache-Control"))
		}
		// The same file at its plain URL, or under a version it no longer
		// has, is the current content but must be revalidated; but for the
		// bundle's files, whose names are their versions.
		plain, _, _ := strings.Cut(u, "?")
		if contentHashed.MatchString(plain) {
			continue
		}
		for _, other := range []string{plain, plain + "?v=0123456789abcdef"} {
			if cc := get2(t, other).Header.Get("Cache-Control"); cc != "no-cache" {
				t.Errorf("%s: Cache-Control %q", strings.TrimPrefix(other, ts.URL), cc)
			}
		}
	}
}

func TestStaticETagRevalidation(t *testing.T) {
	parallel(t)
	ts := staticServer(t)
	for _, p := range []string{"/", "/m/", "/js/core/feed.js", "/m/icons/icon-192.png"} {
		for _, enc := range []string{"", "gzip"} {
			first, _ := get(t, "GET", ts.URL+p, "Accept-Encoding: "+enc)
			etag := first.Header.Get("ETag")
			if !strings.HasPrefix(etag, `"`) {
				t.Fatalf("%s: ETag %q is not a strong ETag", p, etag)
			}
			again, body := get(t, "GET", ts.URL+p, "Accept-Encoding: "+enc, "If-None-Match: "+etag)
			if again.StatusCode != http.StatusNotModified || len(body) != 0 {
				t.Errorf("%s (Accept-Encoding %q): If-None-Match %s got %d with %d bytes", p, enc, etag, again.StatusCode, len(body))
			}
			if other, _ := get(t, "GET", ts.URL+p, "Accept-Encoding: "+enc, `If-None-Match: "stale"`); other.StatusCode != 200 {
				t.Errorf("%s: a stale ETag got %d", p, other.StatusCode)
			}
		}
	}
}

// TestStaticVersionedURLsResolve follows every versioned reference from
// both pages, through style sheets and module imports, bundled and not: each
// resolves to a file served as immutable, its ?v= is that file's version as
// served, every module of the app (or every file of the bundle) is reached,
// and no relative import is left unversioned (the browser would load that
// module twice, under two URLs) but those of the bundle's files, whose
// names hold their versions.
func TestStaticVersionedURLsResolve(t *testing.T) {
	parallel(t)
	anyImport := regexp.MustCompile(`(?:\bfrom|\bimport)\s*\(?\s*['"](\.\.?/[^'"?]+)['"]`)
	for _, bundle := range []bool{true, false} {
		ts := sitesServer(t, bundle)
		seen := map[string]bool{}
		versionOf := map[string]string{} // path → the one version it is referred to by
		var visit func(u *url.URL)
		check := func(from, ref *url.URL, v string) {
			if was, ok := versionOf[ref.Path]; ok && was != v {
				t.Errorf("%s is referred to as ?v=%s and ?v=%s", ref.Path, was, v)
			}
			versionOf[ref.Path] = v
			if seen[ref.String()] {
				return
			}
			seen[ref.String()] = true
			resp, _ := get(t, "HEAD", ref.String())
			if resp.StatusCode != 200 || resp.Header.Get("Cache-Control") != "public, max-age=31536000, immutable" {
				t.Errorf("%s (from %s): %d, Cache-Control %q", ref.RequestURI(), from.Path, resp.StatusCode, resp.Header.Get("Cache-Control"))
			}
			if v != "" && strings.Trim(resp.Header.Get("ETag"), `"`) != v {
				t.Errorf("%s: ETag %s is not its version", ref.RequestURI(), resp.Header.Get("ETag"))
			}
			if ext := path.Ext(ref.Path); ext == ".js" || ext == ".css" {
				visit(ref)
			}
		}
		visit = func(u *url.URL) {
			resp, body := get(t, "GET", u.String())
			if resp.StatusCode != 200 {
				t.Errorf("%s: %d", u.RequestURI(), resp.StatusCode)
				return
			}
			for _, m := range anyImport.FindAllSubmatch(body, -1) {
				ref, _ := u.Parse(string(m[1]))
				if !contentHashed.MatchString(ref.Path) {
					t.Errorf("%s imports %s without a version", u.Path, m[1])
					continue
				}
				check(u, ref, "")
			}
			for _, m := range versionedRef.FindAllSubmatch(body, -1) {
				ref, err := u.Parse(string(m[1]))
				if err != nil {
					t.Fatal(err)
				}
				check(u, ref, ref.Query().Get("v"))
			}
		}
		for _, p := range []string{"/", "/m/"} {
			u, _ := url.Parse(ts.URL + p)
			visit(u)
		}
		for prefix, site := range map[string]*staticSite{"/": webSite(bundle), "/m/": mobileSite(bundle)} {
			code := 0
			for name := range site.files {
				if path.Ext(name) != ".js" || name == "sw.js" || bundle != contentHashed.MatchString("/"+name) {
					continue
				}
				code++
				if _, ok := versionOf[prefix+name]; !ok {
					t.Errorf("bundle %v: %s%s is never loaded", bundle, prefix, name)
				}
			}
			if code < 5 {
				t.Errorf("bundle %v: %s has %d code files", bundle, prefix, code)
			}
		}
	}
}

// TestStaticVersionsFollowImports: changing a module changes the URL of
// everything that imports it, up to the page, so no cached copy goes stale;
// a module in an import cycle is referred to by one plain URL everywhere.
func TestStaticVersionsFollowImports(t *testing.T) {
	parallel(t)
	site := func(b string) fstest.MapFS {
		return fstest.MapFS{
			"index.html":  {Data: []byte(`<html><link rel="stylesheet" href="/s.css"><script type="module" src="/js/a.js"></script></html>`)},
			"s.css":       {Data: []byte(`body { background: url("img/bg.svg") }`)},
			"img/bg.svg":  {Data: []byte(`<svg xmlns="http://www.w3.org/2000/svg"/>`)},
			"js/a.js":     {Data: []byte("import { b } from './lib/b.js';\nexport const a = b;\n")},
			"js/lib/b.js": {Data: []byte("import { c } from '../c.js';\n" + b)},
			"js/c.js":     {Data: []byte("import { x } from './x.js';\nexport const c = 1;\n")},
			"js/x.js":     {Data: []byte("import { c } from './c.js';\nexport const x = 2;\n")},
		}
	}
	one, err := newStaticSite(site("export const b = 1;\n"), "/", false)
	if err != nil {
		t.Fatal(err)
	}
	two, _ := newStaticSite(site("export const b = 2;\n"), "/", false)
	for _, name := range []string{"index.html", "js/a.js", "js/lib/b.js"} {
		if one.files[name].version == two.files[name].version {
			t.Errorf("%s keeps its version when js/lib/b.js changes", name)
		}
	}
	for _, name := range []string{"s.css", "img/bg.svg", "js/c.js", "js/x.js"} {
		if one.files[name].version != two.files[name].version {
			t.Errorf("%s changes its version when js/lib/b.js changes", name)
		}
	}
	want := map[string]string{
		"index.html":  `href="/s.css?v=` + one.files["s.css"].version + `"`,
		"s.css":       `url("img/bg.svg?v=` + one.files["img/bg.svg"].version + `")`,
		"js/a.js":     `from './lib/b.js?v=` + one.files["js/lib/b.js"].version + `'`,
		"js/lib/b.js": `from '../c.js'`, // c.js is in a cycle with x.js
		"js/c.js":     `from './x.js?v=` + one.files["js/x.js"].version + `'`,
		"js/x.js":     `from './c.js'`,
	}
	for name, s := range want {
		if !bytes.Contains(one.files[name].body, []byte(s)) {
			t.Errorf("%s lacks %s:\n%s", name, s, one.files[name].body)
		}
	}
}

// TestStaticSessionHint: the desktop page says whether its request carried
// the session cookie, so that a logged-out visit does not ask /me.
func TestStaticSessionHint(t *testing.T) {
	parallel(t)
	ts := staticServer(t)
	for _, p := range []string{"/", "/u/alice"} {
		anon, body := get(t, "GET", ts.URL+p)
		if !bytes.Contains(body, []byte(`<html lang="en" data-session="none">`)) {
			t.Errorf("%s without a cookie: no data-session=none", p)
		}
		withCookie, body2 := get(t, "GET", ts.URL+p, "Cookie: auth=whatever")
		if !bytes.Contains(body2, []byte(`<html lang="en" data-session="cookie">`)) {
			t.Errorf("%s with the auth cookie: no data-session=cookie", p)
		}
		if !varies(anon, "Cookie") || !varies(withCookie, "Cookie") {
			t.Errorf("%s: no Vary: Cookie", p)
		}
		if anon.Header.Get("ETag") == withCookie.Header.Get("ETag") {
			t.Errorf("%s: both variants have the ETag %s", p, anon.Header.Get("ETag"))
		}
		mePreload := []byte("<link rel=\"preload\" as=\"fetch\" href=\"/api/v1/me\" crossorigin>\n  ")
		if bytes.Contains(body, mePreload) || !bytes.Contains(body2, mePreload) {
			t.Errorf("%s: /me is not preloaded in the cookie's variant alone", p)
		}
		homePreload := []byte("<link rel=\"preload\" as=\"fetch\" href=\"/api/v1/timelines/home?limit=20\" crossorigin>\n  ")
		if bytes.Contains(body, homePreload) || bytes.Contains(body2, homePreload) != (p == "/") {
			t.Errorf("%s: the home timeline is not preloaded in the cookie's variant of / alone", p)
		}
		body2 = bytes.Replace(bytes.Replace(body2, mePreload, nil, 1), homePreload, nil, 1)
		if !bytes.Equal(bytes.Replace(body, []byte(sessionMark), []byte(SessionCookieMark), 1), body2) {
			t.Errorf("%s: the variants differ in more than the mark and the preloads", p)
		}
	}
	_, plain := get(t, "GET", ts.URL+"/m/")
	if _, body := get(t, "GET", ts.URL+"/m/", "Cookie: auth=whatever"); !bytes.Equal(body, plain) || bytes.Contains(body, []byte("data-session")) {
		t.Error("the mobile app, which has no mark, is served another page with the session cookie")
	}
}

func TestStaticRoutes(t *testing.T) {
	parallel(t)
	ts := staticServer(t)
	for p, want := range map[string]int{
		"/":                               200,
		"/u/alice":                        200, // a route of the app: its page
		"/t/v1.2":                         200, // a topic with a dot is a route, not a file
		"/u/bob@example.social":           200, // so is another server's account
		"/u/bob@127.0.0.1:8080/followers": 200,
		"/messages/bob@example.social":    200,
		"/m/u/bob@example.social":         200,
		"/js":                             200, // a folder is no file: a route too
		"/m/":                             200,
		"/m/settings":                     200,
		"/nope.js":                        404,
		"/m/nope.css":                     404,
		"/api/v2/anything":                404, // never the page
		"/index.html":                     301,
		"/m/index.html":                   301,
		"/js/../core.css":                 200,
		"/m/js/core/dom.js":               200,
		"/e2e/helpers.mjs":                404, // the browser tests are not served
	} {
		resp, _ := get(t, "GET", ts.URL+p)
		if resp.StatusCode != want {
			t.Errorf("GET %s: %d, want %d", p, resp.StatusCode, want)
		}
		if want == 301 {
			if loc := resp.Header.Get("Location"); loc != strings.TrimSuffix(p, "index.html") {
				t.Errorf("GET %s: Location %q", p, loc)
			}
		}
		if head, body := get(t, "HEAD", ts.URL+p); head.StatusCode != want || len(body) != 0 {
			t.Errorf("HEAD %s: %d with %d bytes, want %d", p, head.StatusCode, len(body), want)
		}
	}
	_, page := get(t, "GET", ts.URL+"/")
	_, route := get(t, "GET", ts.URL+"/u/alice")
	if !bytes.Equal(page, route) || !bytes.Contains(page, []byte("<!doctype html>")) {
		t.Error("/u/alice is not the page")
	}
}

// TestStaticModulePreloads: each front end's page preloads exactly the
// modules its module script imports, directly or not, at the URLs the
// imports ask for, so the browser fetches them at once rather than one
// level of imports per round trip; the code loaded on demand (the
// operators' page, the language catalogs, the emoji list) is not among
// them. So with the modules as written and with the bundle; the bundled page
// also preloads the catalogs of the browser's language (Accept-Language),
// and only those.
func TestStaticModulePreloads(t *testing.T) {
	parallel(t)
	preload := regexp.MustCompile(`<link rel="modulepreload" href="([^"]+)">`)
	entry := regexp.MustCompile(`<script type="module" src="([^"]+)">`)
	imports := regexp.MustCompile(`(?:\bfrom|\bimport)\s*["'](\.\.?/[^"']+)["']`)
	dynamic := regexp.MustCompile(`\bimport\(\s*["'](\.\.?/[^"']+)["']`)
	for _, bundle := range []bool{true, false} {
		ts := sitesServer(t, bundle)
		for _, c := range []struct{ page, accept, lang string }{
			{"/", "", "en"}, {"/m/", "", "en"},
			{"/", "zh-CN,zh;q=0.9,en;q=0.8", "zh-CN"}, {"/m/", "fr-FR, zh-TW;q=0.8, en;q=0.5", "zh-CN"},
			{"/m/", "de, en-GB;q=0.9", "en"},
			// The language chosen in Settings (i18n.js keeps it in a cookie) wins.
			{"/", "en-US;microblog.lang=zh-CN", "zh-CN"}, {"/m/", "zh-CN;microblog.lang=en", "en"},
			{"/m/", "zh-CN;microblog.lang=fr", "zh-CN"},
		} {
			page := c.page
			accept, lang, _ := strings.Cut(c.accept, ";")
			headers := []string{"Accept-Language: " + accept}
			if lang != "" {
				headers = append(headers, "Cookie: auth=x; "+lang)
			}
			resp, body := get(t, "GET", ts.URL+page, headers...)
			if varies(resp, "Accept-Language") != bundle || varies(resp, "Cookie") != (bundle || page == "/") {
				t.Errorf("bundle %v: %s: Vary %q", bundle, page, resp.Header.Values("Vary"))
			}
			listed := map[string]bool{}
			for _, m := range preload.FindAllSubmatch(body, -1) {
				listed[string(m[1])] = true
			}
			m := entry.FindSubmatch(body)
			if m == nil {
				t.Fatalf("%s has no module script", page)
			}
			base, _ := url.Parse(ts.URL + page)
			start, _ := base.Parse(string(m[1]))
			graph, onDemand := map[string]bool{}, map[string]bool{}
			var walk func(u *url.URL)
			walk = func(u *url.URL) {
				resp, src := get(t, "GET", u.String())
				if resp.StatusCode != http.StatusOK {
					t.Fatalf("%s: %s", u, resp.Status)
				}
				for _, m := range dynamic.FindAllSubmatch(src, -1) {
					ref, _ := u.Parse(string(m[1]))
					onDemand[ref.RequestURI()] = true
				}
				for _, m := range imports.FindAllSubmatch(src, -1) {
					target, err := u.Parse(string(m[1]))
					if err != nil {
						t.Fatal(err)
					}
					key := target.RequestURI()
					if !graph[key] {
						graph[key] = true
						walk(target)
					}
				}
			}
			walk(start)
			for u := range graph {
				if !listed[u] {
					t.Errorf("bundle %v: %s does not preload %s", bundle, page, u)
				}
			}
			var catalogs []string
			for u := range listed {
				if onDemand[u] && bundle {
					catalogs = append(catalogs, u)
					continue
				}
				if !graph[u] {
					t.Errorf("bundle %v: %s preloads %s, which its script does not import", bundle, page, u)
				}
				if onDemand[u] || strings.Contains(u, "/locales/") || strings.Contains(u, "admin") {
					t.Errorf("bundle %v: %s preloads %s, which is loaded on demand", bundle, page, u)
				}
			}
			if bundle && len(catalogs) != 3 { // core, desktop, mobile
				t.Errorf("%s (Accept-Language %q) preloads %d of the modules loaded on demand: %v", page, c.accept, len(catalogs), catalogs)
			}
			for _, u := range catalogs {
				_, src := get(t, "GET", ts.URL+u)
				if chinese := regexp.MustCompile(`\p{Han}`).Match(src); chinese != (c.lang == "zh-CN") {
					t.Errorf("%s (Accept-Language %q) preloads %s, not a catalog in %s", page, c.accept, u, c.lang)
				}
			}
			if len(onDemand) < 4 { // a language's three catalogs, the emoji list
				t.Errorf("bundle %v: %s: only %d modules loaded on demand: %v", bundle, page, len(onDemand), onDemand)
			}
			if len(graph) < 20 && !bundle {
				t.Errorf("%s: only %d modules found; is the import pattern right?", page, len(graph))
			}
		}
	}
}

// TestStaticBundle: by default each page loads the bundle of its modules
// and holds its style sheets; the mobile service worker keeps every file of
// the bundle (both languages' catalogs among them) and nothing else of the
// code; MICROBLOG_BUNDLE=off serves the pages as written, with links to
// their style sheets and their modules, and sw.js as written.
func TestStaticBundle(t *testing.T) {
	parallel(t)
	bundled, modules := staticServer(t), modulesServer(t)
	script := regexp.MustCompile(`<script type="module" src="([^"?]+)`)
	for _, page := range []string{"/", "/m/"} {
		_, b := get(t, "GET", bundled.URL+page)
		_, m := get(t, "GET", modules.URL+page)
		if s := script.FindSubmatch(b); s == nil || !contentHashed.Match(s[1]) {
			t.Errorf("%s loads %q, not the bundle", page, s)
		}
		if s := script.FindSubmatch(m); s == nil || !strings.HasSuffix(string(s[1]), "js/app.js") {
			t.Errorf("%s with MICROBLOG_BUNDLE=off loads %q, not js/app.js", page, s)
		}
		core, _ := fs.ReadFile(web.FS(), "core.css")
		if bytes.Contains(b, []byte(`rel="stylesheet"`)) || !bytes.Contains(b, []byte("<style>\n"+string(core[:200]))) {
			t.Errorf("%s does not hold its style sheets", page)
		}
		if !bytes.Contains(m, []byte(`<link rel="stylesheet" href="`)) || bytes.Contains(m, core[:200]) {
			t.Errorf("%s with MICROBLOG_BUNDLE=off holds its style sheets", page)
		}
	}

	// The service worker keeps what the bundled app loads, and all of it.
	list := func(sw []byte) map[string]bool {
		m := swModules.FindSubmatch(sw)
		if m == nil {
			t.Fatalf("sw.js has no MODULES list:\n%s", sw)
		}
		names := map[string]bool{}
		for _, n := range regexp.MustCompile(`'([^']+)'`).FindAllSubmatch(swModules.Find(sw), -1) {
			names[string(n[1])] = true
		}
		return names
	}
	_, sw := get(t, "GET", bundled.URL+"/m/sw.js")
	site := mobileSite(true)
	want := map[string]bool{}
	for name := range site.files {
		if site.hashed[name] && path.Ext(name) == ".js" {
			want[name] = true
		}
	}
	if got := list(sw); len(want) < 5 || !maps.Equal(got, want) {
		t.Errorf("the served sw.js keeps %v, want the bundle's %v", slices.Sorted(maps.Keys(got)), slices.Sorted(maps.Keys(want)))
	}
	for name := range want {
		if resp, _ := get(t, "HEAD", bundled.URL+"/m/"+name); resp.StatusCode != 200 {
			t.Errorf("/m/%s: %d", name, resp.StatusCode)
		}
	}
	raw, _ := fs.ReadFile(mobile.FS(), "sw.js")
	if _, asIs := get(t, "GET", modules.URL+"/m/sw.js"); !bytes.Equal(asIs, raw) || !list(raw)["js/app.js"] {
		t.Error("with MICROBLOG_BUNDLE=off, sw.js is not served as written, listing the modules")
	}
}

func TestBrowserLang(t *testing.T) {
	parallel(t)
	for header, want := range map[string]string{
		"":                               "en",
		"en-US,en;q=0.9":                 "en",
		"zh-CN,zh;q=0.9,en;q=0.8":        "zh-CN",
		"zh-TW":                          "zh-CN",
		"fr, de;q=0.9":                   "en",
		"fr, zh-Hans;q=0.5, en-GB;q=0.4": "zh-CN",
		"en;q=0.2, zh;q=0.8":             "zh-CN",
		"zh;q=0, en-AU":                  "en",
		"not a header ;;; q=x":           "en",
	} {
		if got := browserLang(header); got != want {
			t.Errorf("browserLang(%q) = %s, want %s", header, got, want)
		}
	}
}

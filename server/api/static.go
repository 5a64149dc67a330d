package api

import (
	"bytes"
	"compress/gzip"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io/fs"
	"maps"
	"mime"
	"net/http"
	"path"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/labstack/echo/v4"
	"golang.org/x/text/language"

	"microblog/mobile"
	"microblog/web"
)

// Static files are prepared once, when the handler is made, not per request:
//
//   - Versions. Each file's version is a hash of its content. Where one file
//     refers to another (the page's <link href> and <script src>, a module's
//     import … from './x.js', a style sheet's url()), the reference gets
//     ?v=<version>. Referrers are prepared after what they refer to, so a
//     module's version covers the modules it imports: a change anywhere
//     reaches the page through new URLs. A request whose ?v= is the file's
//     current version may be cached for a year, unchanged ("immutable");
//     anything else (HTML, sw.js, the manifest, a reference nobody versioned,
//     an old ?v=) is "no-cache": kept, but revalidated with its ETag each time.
//   - Compression. Text files are gzipped once, at the best level, and sent
//     compressed to clients that accept it (Vary: Accept-Encoding).
//   - The session hint. The desktop page cannot see its session cookie
//     (HttpOnly), and asking /me without one can only earn a 401, which the
//     browser logs as an error. So a page whose <html> carries sessionMark is
//     also kept with that mark replaced by SessionCookieMark, and served so
//     to requests that carry a session cookie (Vary: Cookie); the page asks
//     /me only then. It says the cookie is there, not that it is valid.
const (
	sessionMark     = `data-session="none"`
	cacheImmutable  = "public, max-age=31536000, immutable"
	cacheRevalidate = "no-cache"
)

// SessionCookieMark is what sessionMark becomes in the page served to a
// request that carries a session cookie.
const SessionCookieMark = `data-session="cookie"`

// refPatterns find references to other files by file type; the first group
// is the reference. Only paths are matched (no scheme, query or fragment);
// a JavaScript import must be relative, as the front ends write them.
var refPatterns = map[string]*regexp.Regexp{
	".html": regexp.MustCompile(`\b(?:href|src)="([^"#?:]+)"`),
	".css":  regexp.MustCompile(`url\(["']?([^"')#?:]+)["']?\)`),
	".js":   regexp.MustCompile(`(?:\bfrom|\bimport)\s*\(?\s*["'](\.\.?/[^"'#?:]+)["']`),
}

// staticImport finds a module's static imports (import … from './x.js',
// import './x.js'), not its dynamic import('./x.js'): those are what the
// browser must fetch before the module can run.
var staticImport = regexp.MustCompile(`(?:\bfrom|\bimport)\s*["'](\.\.?/[^"'#?:]+)["']`)

// moduleEntry finds a page's module script.
var moduleEntry = regexp.MustCompile(`<script type="module" src="([^"#?:]+)(?:\?v=[0-9a-f]+)?"></script>`)

// staticFile is one file, ready to send.
type staticFile struct {
	body, gz    []byte // gz is nil when gzip would not make it smaller
	contentType string
	version     string      // hash of body, the ?v= of versioned URLs
	session     *staticFile // the page with SessionCookieMark, if it has sessionMark
	home        *staticFile // session, at the site's root: the home timeline preloaded too
	// langs are this page by language, each also preloading the catalogs of
	// the language shown (see withCatalogs); nil: one page for all.
	langs map[string]*staticFile
}

// staticSite is a front end's files by name (as in its fs.FS), served under prefix.
type staticSite struct {
	prefix string
	files  map[string]*staticFile
	cyclic map[string]bool // files met again while being prepared: never versioned
	hashed map[string]bool // the bundle's files, whose names hold their versions (static_bundle.go)
	// catalogs are, by page and language, the bundle's chunks of that
	// language's catalogs (static_bundle.go), which the page preloads.
	catalogs map[string]map[string][]string
}

// The front ends are embedded in the binary, so each is prepared (bundled,
// versioned and compressed) once per process and way of serving, not once
// per server made in it: the tests start hundreds, and preparing took a
// sixth of their CPU.
var (
	webSite    = oncePerMode(func(bundle bool) *staticSite { return mustStaticSite(web.FS(), "/", bundle) })
	mobileSite = oncePerMode(func(bundle bool) *staticSite { return mustStaticSite(mobile.FS(), "/m/", bundle) })
)

// oncePerMode calls make at most once for each value of bundle.
func oncePerMode(make func(bundle bool) *staticSite) func(bundle bool) *staticSite {
	bundled := sync.OnceValue(func() *staticSite { return make(true) })
	modules := sync.OnceValue(func() *staticSite { return make(false) })
	return func(bundle bool) *staticSite {
		if bundle {
			return bundled()
		}
		return modules()
	}
}

// frontEndRoutes serves the desktop front end under / and the mobile app
// under /m/: every path no other route takes. With bundle, their pages load
// their code bundled (static_bundle.go); else module by module.
func frontEndRoutes(e *echo.Echo, bundle bool) {
	e.GET("/m", func(c echo.Context) error { return c.Redirect(http.StatusMovedPermanently, "/m/") })
	readOnly := []string{http.MethodGet, http.MethodHead}
	e.Match(readOnly, "/m/*", mobileSite(bundle).serve)
	e.Match(readOnly, "/*", webSite(bundle).serve)
}

// mustStaticSite is newStaticSite of files embedded in the binary, whose
// errors are the build's. Its serve serves the front end under prefix. A
// path that is not a file and has no extension is a route of the app (say
// /u/alice) and gets its index.html; a missing asset is a plain 404. The
// files are read, bundled if bundle, versioned and compressed here, once.
func mustStaticSite(fsys fs.FS, prefix string, bundle bool) *staticSite {
	site, err := newStaticSite(fsys, prefix, bundle)
	if err != nil {
		panic(fmt.Sprintf("static files under %s: %v", prefix, err))
	}
	return site
}

func newStaticSite(fsys fs.FS, prefix string, bundle bool) (*staticSite, error) {
	raw := map[string][]byte{}
	err := fs.WalkDir(fsys, ".", func(name string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		raw[name], err = fs.ReadFile(fsys, name)
		return err
	})
	if err != nil {
		return nil, err
	}
	s := &staticSite{prefix: prefix, files: make(map[string]*staticFile, len(raw)), cyclic: map[string]bool{}, hashed: map[string]bool{}}
	if bundle {
		added, catalogs, err := bundleSite(fsys, raw, s.resolve)
		if err != nil {
			return nil, err
		}
		s.catalogs = catalogs
		for _, name := range added {
			s.hashed[name] = true
		}
	}
	for _, name := range slices.Sorted(maps.Keys(raw)) { // sorted, so a cycle is cut in the same place every time
		s.prepare(name, raw, map[string]bool{})
	}
	for name, f := range s.files {
		if path.Ext(name) == ".html" {
			if bundle {
				f = s.withStyles(name, f)
			}
			s.files[name] = s.withPreloads(name, f, raw)
		}
	}
	return s, nil
}

// styleSheet finds a page's link to one of the site's style sheets.
var styleSheet = regexp.MustCompile(`[ \t]*<link rel="stylesheet" href="([^"#?:]+)(?:\?v=[0-9a-f]+)?">\n?`)

// withStyles moves a page's style sheets into it, each a <style> at the end
// of its <head>, after the module script. Nothing is drawn before the style
// sheets are in, and fetched beside the code and the preloaded API answers,
// sharing the bandwidth with them, they came a round trip after the page
// and then slowly: half a second of blank page at 150 ms and 1.6 Mbit/s.
// In the page, they come with it (about 15 kB gzipped), and the requests
// the preloads start go out before the browser reads them. They are no
// longer cached apart from the page, which is revalidated (ETag) anyway.
func (s *staticSite) withStyles(name string, f *staticFile) *staticFile {
	var styles []byte
	body := styleSheet.ReplaceAllFunc(f.body, func(link []byte) []byte {
		file := s.resolve(name, string(styleSheet.FindSubmatch(link)[1]))
		css := s.files[file]
		if css == nil || path.Dir(file) != path.Dir(name) { // its url()s are relative to its folder
			return link
		}
		styles = slices.Concat(styles, []byte("<style>\n"), css.body, []byte("</style>\n"))
		return nil
	})
	if styles == nil {
		return f
	}
	end := bytes.Index(body, []byte("</head>"))
	body = slices.Concat(body[:end], styles, body[end:])
	out := newStaticFile(name, body)
	if f.session != nil {
		out.session = newStaticFile(name, bytes.Replace(body, []byte(sessionMark), []byte(SessionCookieMark), 1))
	}
	return out
}

// withPreloads adds to a page a <link rel="modulepreload"> for every module
// its module script imports, directly or not, at the URL the import asks for
// (with its ?v=). Without them the browser learns of a module only when the
// one importing it has arrived: a chain of six round trips before the first
// line runs; with them it asks for all at once. Dynamic imports (the
// operators' page, the catalogs of the language not shown) are left out.
func (s *staticSite) withPreloads(name string, f *staticFile, raw map[string][]byte) *staticFile {
	m := moduleEntry.FindSubmatchIndex(f.body)
	if m == nil {
		return f
	}
	entry := s.resolve(name, string(f.body[m[2]:m[3]]))
	var links []byte
	seen := map[string]bool{entry: true}
	var walk func(module string)
	walk = func(module string) {
		for _, ref := range staticImport.FindAllSubmatch(raw[module], -1) {
			target := s.resolve(module, string(ref[1]))
			if seen[target] || s.files[target] == nil {
				continue
			}
			seen[target] = true
			url := s.prefix + target
			if !s.cyclic[target] && !s.hashed[target] {
				url += "?v=" + s.files[target].version
			}
			links = fmt.Appendf(links, "<link rel=\"modulepreload\" href=\"%s\">\n  ", url)
			walk(target)
		}
	}
	walk(entry)
	body := slices.Concat(f.body[:m[0]], links, f.body[m[0]:])
	out := newStaticFile(name, body)
	if f.session != nil {
		// A page asked for with a session cookie will ask /me first thing:
		// the browser may start that request now, beside the modules.
		me := []byte("<link rel=\"preload\" as=\"fetch\" href=\"/api/v1/me\" crossorigin>\n  ")
		head := bytes.Replace(body[:m[0]], []byte(sessionMark), []byte(SessionCookieMark), 1)
		out.session = newStaticFile(name, slices.Concat(head, me, body[m[0]:]))
		// At / it then shows the home timeline's first page: that too.
		home := []byte("<link rel=\"preload\" as=\"fetch\" href=\"/api/v1/timelines/home?limit=20\" crossorigin>\n  ")
		out.home = newStaticFile(name, slices.Concat(head, me, home, body[m[0]:]))
	}
	s.withCatalogs(name, out)
	return out
}

// withCatalogs gives each variant of page, for each language, a variant
// that also preloads the chunks of that language's catalogs. The page's code
// loads them before it shows anything (i18n.js), and it learns which only
// once the bundle has arrived and run: a round trip the server saves by
// knowing as i18n.js will (shownLang): the language chosen in Settings, else
// the browser's.
func (s *staticSite) withCatalogs(name string, page *staticFile) {
	for _, f := range []*staticFile{page, page.session, page.home} {
		if f == nil || s.catalogs[name] == nil {
			continue
		}
		m := moduleEntry.FindIndex(f.body)
		f.langs = map[string]*staticFile{}
		for lang, chunks := range s.catalogs[name] {
			var links []byte
			for _, c := range chunks {
				links = fmt.Appendf(links, "<link rel=\"modulepreload\" href=\"%s\">\n  ", s.prefix+c)
			}
			f.langs[lang] = newStaticFile(name, slices.Concat(f.body[:m[0]], links, f.body[m[0]:]))
		}
	}
}

// langCookie is the language chosen in the front ends' Settings (i18n.js).
const langCookie = "microblog.lang"

// shownLang is the language i18n.js will show the page in, as far as the
// server can tell: the one chosen in Settings, which i18n.js keeps in a
// cookie, else the browser's.
func shownLang(r *http.Request) string {
	if c, err := r.Cookie(langCookie); err == nil && (c.Value == "en" || c.Value == "zh-CN") {
		return c.Value
	}
	return browserLang(r.Header.Get("Accept-Language"))
}

// browserLang is the language of the browser, as i18n.js reads it: the first of Accept-Language's (by q-value) that the
// front ends speak, else English. Like i18n.js's pick, any en-* is "en" and
// any zh-* is "zh-CN".
func browserLang(header string) string {
	tags, _, _ := language.ParseAcceptLanguage(header) // most wanted first; an unreadable header is none
	for _, t := range tags {
		switch base, _ := t.Base(); base.String() {
		case "en":
			return "en"
		case "zh":
			return "zh-CN"
		}
	}
	return "en"
}

// prepare makes the staticFile of name, first preparing the files it refers
// to so that its references can carry their versions. busy holds the files
// being prepared further up. A file referred to again while it is busy (an
// import cycle) cannot know its version yet, so every reference to it stays
// plain: a module must have one URL, or the browser would run it twice.
func (s *staticSite) prepare(name string, raw map[string][]byte, busy map[string]bool) *staticFile {
	if busy[name] {
		s.cyclic[name] = true
	}
	if f := s.files[name]; f != nil || busy[name] {
		return f
	}
	busy[name] = true
	defer delete(busy, name)
	body := raw[name]
	if re := refPatterns[path.Ext(name)]; re != nil && !s.hashed[name] {
		body = addVersions(body, re, func(ref string) string {
			target := s.resolve(name, ref)
			if _, ok := raw[target]; !ok || !versioned(target) {
				return ""
			}
			if f := s.prepare(target, raw, busy); f != nil && !s.cyclic[target] {
				return f.version
			}
			return ""
		})
	}
	f := newStaticFile(name, body)
	if bytes.Contains(body, []byte(sessionMark)) {
		f.session = newStaticFile(name, bytes.Replace(body, []byte(sessionMark), []byte(SessionCookieMark), 1))
	}
	s.files[name] = f
	return f
}

// addVersions appends ?v=<version(ref)> to each reference re finds in body
// for which version returns one.
func addVersions(body []byte, re *regexp.Regexp, version func(ref string) string) []byte {
	var out []byte
	last := 0
	for _, m := range re.FindAllSubmatchIndex(body, -1) {
		if v := version(string(body[m[2]:m[3]])); v != "" {
			out = append(append(out, body[last:m[3]]...), "?v="+v...)
			last = m[3]
		}
	}
	return append(out, body[last:]...)
}

// resolve turns a reference found in file from into a file name: absolute
// paths within the site's prefix, or relative to from's folder.
func (s *staticSite) resolve(from, ref string) string {
	if strings.HasPrefix(ref, "/") {
		rest, ok := strings.CutPrefix(ref, s.prefix)
		if !ok {
			return ""
		}
		return path.Clean(rest)
	}
	return path.Join(path.Dir(from), ref)
}

// versioned says whether name may be referred to with ?v=. Pages, the
// service worker (its URL is its identity) and the manifest (browsers check
// it for updates at the same URL) are always fetched at their plain URLs.
func versioned(name string) bool {
	return !strings.HasSuffix(name, ".html") && path.Base(name) != "sw.js" && path.Ext(name) != ".webmanifest"
}

func newStaticFile(name string, body []byte) *staticFile {
	sum := sha256.Sum256(body)
	f := &staticFile{body: body, contentType: contentType(name, body), version: hex.EncodeToString(sum[:8])}
	// The bundle's source maps (2 MB) are for developer tools alone:
	// compressing them took as long as bundling.
	if compressible(f.contentType) && path.Ext(name) != ".map" {
		var buf bytes.Buffer
		zw, _ := gzip.NewWriterLevel(&buf, gzip.BestCompression) // the level is valid
		zw.Write(body)
		zw.Close()
		if buf.Len() < len(body)*9/10 {
			f.gz = buf.Bytes()
		}
	}
	return f
}

// contentType is name's media type; .webmanifest is not in Go's table.
func contentType(name string, body []byte) string {
	switch path.Ext(name) {
	case ".webmanifest":
		return "application/manifest+json"
	case ".map": // a source map
		return "application/json"
	}
	if t := mime.TypeByExtension(path.Ext(name)); t != "" {
		return t
	}
	return http.DetectContentType(body)
}

// compressible says whether gzip is worth trying: text, not images like PNG
// that are compressed already.
func compressible(ctype string) bool {
	t, _, _ := strings.Cut(ctype, ";")
	return strings.HasPrefix(t, "text/") || strings.HasSuffix(t, "+json") || strings.HasSuffix(t, "+xml") ||
		t == "application/json" || t == "application/javascript" || t == "application/xml"
}

// acceptsGzip reads an Accept-Encoding header: gzip, or else *, with a
// q-value above zero.
func acceptsGzip(header string) bool {
	gzipQ, anyQ := -1.0, -1.0
	for _, part := range strings.Split(header, ",") {
		coding, params, _ := strings.Cut(part, ";")
		q := 1.0
		for _, p := range strings.Split(params, ";") {
			if v, ok := strings.CutPrefix(strings.TrimSpace(p), "q="); ok {
				if f, err := strconv.ParseFloat(v, 64); err == nil {
					q = f
				}
			}
		}
		switch strings.ToLower(strings.TrimSpace(coding)) {
		case "gzip", "x-gzip":
			gzipQ = q
		case "*":
			anyQ = q
		}
	}
	if gzipQ >= 0 {
		return gzipQ > 0
	}
	return anyQ > 0
}

// isRouteWithDot tells the app's routes whose last part may hold a dot (a
// topic, a remote account's name@domain) from a missing asset.
func isRouteWithDot(name string) bool {
	return strings.HasPrefix(name, "t/") || strings.HasPrefix(name, "u/") || strings.HasPrefix(name, "messages/")
}

func (s *staticSite) serve(c echo.Context) error {
	r := c.Request()
	if strings.HasPrefix(r.URL.Path, "/api/") || strings.HasPrefix(r.URL.Path, "/.well-known/") {
		return echo.ErrNotFound // an API's, never the page: a client must not read HTML as an answer
	}
	name := strings.TrimPrefix(path.Clean("/"+strings.TrimPrefix(r.URL.Path, s.prefix)), "/")
	if name == "index.html" { // the page's one URL is the folder's, as http.FileServer has it
		return c.Redirect(http.StatusMovedPermanently, s.prefix)
	}
	f := s.files[name]
	if f == nil {
		// A topic's name may hold a dot (/t/v1.2), and so does another
		// server's account (/u/bob@example.social, /messages/bob@…): those
		// are routes, not assets.
		if path.Ext(name) != "" && !isRouteWithDot(name) {
			return echo.ErrNotFound
		}
		name, f = "index.html", s.files["index.html"]
		if f == nil {
			return echo.ErrNotFound
		}
	}
	h := c.Response().Header()
	if f.session != nil {
		h.Add("Vary", "Cookie")
		if _, ok := sessionCookie(c); ok {
			if r.URL.Path == s.prefix && f.home != nil {
				f = f.home
			} else {
				f = f.session
			}
		}
	}
	if f.langs != nil {
		h.Add("Vary", "Accept-Language")
		if !slices.Contains(h.Values("Vary"), "Cookie") {
			h.Add("Vary", "Cookie") // the language cookie
		}
		if l := f.langs[shownLang(r)]; l != nil {
			f = l
		}
	}
	if versioned(name) && (r.URL.Query().Get("v") == f.version || s.hashed[name]) {
		h.Set("Cache-Control", cacheImmutable)
	} else {
		h.Set("Cache-Control", cacheRevalidate)
	}
	if path.Base(name) == "sw.js" {
		h.Set("Service-Worker-Allowed", s.prefix)
	}
	body, etag := f.body, `"`+f.version+`"`
	if f.gz != nil {
		h.Add("Vary", "Accept-Encoding")
		if acceptsGzip(r.Header.Get("Accept-Encoding")) {
			body, etag = f.gz, `"`+f.version+`.gz"`
			h.Set("Content-Encoding", "gzip")
			// http.ServeContent sends no Content-Length once there is a
			// Content-Encoding, in case the writer compresses; ours does
			// not. Ranges of a few compressed kilobytes are not worth
			// having: the whole file it is.
			h.Set("Content-Length", strconv.Itoa(len(body)))
			r = r.Clone(r.Context())
			r.Header.Del("Range")
		}
	}
	h.Set("Content-Type", f.contentType)
	h.Set("ETag", etag)
	http.ServeContent(c.Response(), r, "", time.Time{}, bytes.NewReader(body))
	return nil
}

package federation

import (
	"net/netip"
	"net/url"
	"testing"
)

// TestPublicAddr: only addresses on the public internet may be dialed.
func TestPublicAddr(t *testing.T) {
	for addr, want := range map[string]bool{
		"93.184.216.34": true, "2606:4700::1111": true,
		"127.0.0.1": false, "10.1.2.3": false, "172.16.0.1": false, "192.168.1.1": false,
		"169.254.169.254": false, "100.64.0.1": false, "0.0.0.0": false, "::1": false,
		"fe80::1": false, "fc00::1": false, "::ffff:127.0.0.1": false, "2001:db8::1": false, "224.0.0.1": false,
	} {
		if got := publicAddr(netip.MustParseAddr(addr)); got != want {
			t.Errorf("publicAddr(%s) = %v, want %v", addr, got, want)
		}
	}
}

// TestCheckURL: https only (http with the switch), no credentials, no
// literal private address or localhost before any dial.
func TestCheckURL(t *testing.T) {
	for raw, want := range map[string]bool{
		"https://example.org/users/a": true,
		"http://example.org/users/a":  false,
		"https://127.0.0.1/x":         false,
		"https://[::1]/x":             false,
		"https://localhost/x":         false,
		"https://a.localhost/x":       false,
		"https://u:p@example.org/x":   false,
		"ftp://example.org/x":         false,
		"https:///x":                  false,
	} {
		u, _ := url.Parse(raw)
		if got := checkURL(u, false) == nil; got != want {
			t.Errorf("checkURL(%s) allowed %v, want %v", raw, got, want)
		}
	}
	u, _ := url.Parse("http://127.0.0.1:8080/x")
	if err := checkURL(u, true); err != nil {
		t.Errorf("with the switch: %v", err)
	}
}

// TestHTMLToText: remote HTML is sanitized and made plain text.
func TestHTMLToText(t *testing.T) {
	for in, want := range map[string]string{
		`<p>Hello <b>world</b></p><p>second</p>`:                           "Hello world\n\nsecond",
		`<p>a<br>b<br/>c</p>`:                                              "a\nb\nc",
		`<p><a href="https://x.example/@bob">@<span>bob</span></a> hi</p>`: "@bob hi",
		`<script>alert(1)</script><p>safe</p>`:                             "safe",
		`<p>1 &lt; 2 &amp;&amp; 3 &gt; 2</p>`:                              "1 < 2 && 3 > 2",
		`<img src=x onerror=alert(1)>text`:                                 "text",
	} {
		if got := htmlToText(in); got != want {
			t.Errorf("htmlToText(%q) = %q, want %q", in, got, want)
		}
	}
}

// TestSplitHandle reads name@domain in its forms.
func TestSplitHandle(t *testing.T) {
	for in, want := range map[string]string{
		"bob@example.org": "bob example.org", "@bob@Example.org": "bob example.org",
		"acct:bob@example.org:8443": "bob example.org:8443", "bob": "", "@bob@": "", "a/b@x.org": "", "bob@bad domain": "",
	} {
		name, domain, ok := splitHandle(in)
		got := ""
		if ok {
			got = name + " " + domain
		}
		if got != want {
			t.Errorf("splitHandle(%q) = %q, want %q", in, got, want)
		}
	}
}

// TestRFC9421Members reads the structured fields the verifier needs.
func TestRFC9421Members(t *testing.T) {
	label, v, ok := firstMember(`sig1=("@method" "@target-uri");created=1;keyid="a,b";alg="rsa-v1_5-sha256", sig2=("x")`)
	if !ok || label != "sig1" || v != `("@method" "@target-uri");created=1;keyid="a,b";alg="rsa-v1_5-sha256"` {
		t.Errorf("firstMember: %q %q %v", label, v, ok)
	}
	p := paramsOf(`;created=1;keyid="k#main-key";alg="rsa-v1_5-sha256"`)
	if p["created"] != "1" || p["keyid"] != "k#main-key" || p["alg"] != "rsa-v1_5-sha256" {
		t.Errorf("paramsOf: %v", p)
	}
	if b, ok := signatureOf(`sig0=:AAA=:, sig1=:AQID:`, "sig1"); !ok || len(b) != 3 {
		t.Errorf("signatureOf: %v %v", b, ok)
	}
}

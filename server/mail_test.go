package main

import (
	"io"
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"testing"
	"time"

	"microblog/server/mail/smtptest"
)

// mailServer is a server that sends mail through a real SMTP server
// (aiosmtpd), which it returns beside it.
func mailServer(t *testing.T, env ...string) (*testServer, *smtptest.Server) {
	t.Helper()
	smtp := smtptest.Start(t)
	env = append([]string{"MICROBLOG_SMTP_URL=" + smtp.URL(), "MICROBLOG_MAIL_FROM=Microblog <noreply@example.edu>"}, env...)
	return newTestServer(t, env...), smtp
}

// mailedLink is the link of a mail to the server, its path and query.
func mailedLink(t *testing.T, ts *testServer, m smtptest.Message) string {
	t.Helper()
	link := regexp.MustCompile(`https?://\S+/auth/\S+`).FindString(m.Body)
	if link == "" {
		t.Fatalf("no link in the mail:\n%s", m.Body)
	}
	if !strings.HasPrefix(link, ts.URL+"/") {
		t.Fatalf("the link %s is not on the server %s", link, ts.URL)
	}
	return strings.TrimPrefix(link, ts.URL)
}

// tokenOf is the token of a link's path.
func tokenOf(link string) string {
	path, _, _ := strings.Cut(link, "?")
	return path[strings.LastIndexByte(path, '/')+1:]
}

// linkPage GETs (form nil) or POSTs a form to one of the links' pages, as a
// browser without JavaScript would, and returns its status and HTML.
func (ts *testServer) linkPage(t *testing.T, path string, form url.Values) (int, string) {
	t.Helper()
	var resp *http.Response
	var err error
	if form == nil {
		resp, err = http.Get(ts.URL + path)
	} else {
		resp, err = http.PostForm(ts.URL+path, form)
	}
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	if ct := resp.Header.Get("Content-Type"); !strings.HasPrefix(ct, "text/html") {
		t.Fatalf("%s: Content-Type %q, want HTML", path, ct)
	}
	return resp.StatusCode, string(b)
}

// confirmEmail sets address as the user's and confirms it through the
// mailed link's page, as its owner would.
func confirmEmail(t *testing.T, ts *testServer, smtp *smtptest.Server, token, address string) {
	t.Helper()
	status, body := ts.call(t, "PATCH", "/api/v1/me", token, map[string]string{"email": address, "lang": "en"})
	if status != http.StatusOK || !strings.Contains(string(body), `"email_pending":"`+address+`"`) {
		t.Fatalf("PATCH /me email: %d %s", status, body)
	}
	m := smtp.WaitFor(t, address)
	if !strings.Contains(m.Header.Get("Subject"), "Confirm") {
		t.Fatalf("confirmation mail's subject %q", m.Header.Get("Subject"))
	}
	link := mailedLink(t, ts, m)
	if status, html := ts.linkPage(t, link, nil); status != http.StatusOK || !strings.Contains(html, address) || !strings.Contains(html, `method="post"`) {
		t.Fatalf("GET %s: %d\n%s", link, status, html)
	}
	if status, html := ts.linkPage(t, link, url.Values{}); status != http.StatusOK || !strings.Contains(html, "is confirmed") {
		t.Fatalf("POST %s: %d\n%s", link, status, html)
	}
	_, body = ts.call(t, "GET", "/api/v1/me", token, nil)
	if !strings.Contains(string(body), `"email":"`+address+`"`) || !strings.Contains(string(body), `"email_pending":""`) {
		t.Fatalf("/me after confirming: %s", body)
	}
}

// TestPasswordResetByMail walks a forgotten password end to end against a
// real SMTP server: an address confirmed by its link, a reset asked for an
// unknown and a known address alike (202 both, mail to the known one
// only), a too short password refused without using the link up, the new
// password set, every session ended (a second login's, and a Mastodon
// OAuth token), the old password refused and the new one taken, and the
// link refused when used again.
func TestPasswordResetByMail(t *testing.T) {
	parallel(t)
	ts, smtp := mailServer(t)
	token, _ := ts.register(t, "forgetful")
	confirmEmail(t, ts, smtp, token, "forgetful@example.com")
	_, other := ts.call(t, "POST", "/api/v1/sessions", "", map[string]string{"username": "forgetful", "password": testPassword})
	var second struct{ Token string }
	mustDecode(t, other, &second)
	oauth := ts.mastodonToken(t, "forgetful", token, "read")
	if resp := ts.do(t, "GET", "/api/v1/accounts/verify_credentials", oauth, nil, nil); resp.StatusCode != http.StatusOK {
		t.Fatalf("the OAuth token before the reset: %d", resp.StatusCode)
	}

	// The same answer after the same work: as many round trips to Redis
	// (the request only queues the mail), whatever the address.
	var answers []string
	var trips []float64
	for _, addr := range []string{"nobody@example.com", "Forgetful@Example.com"} {
		before := ts.roundTrips(t, "POST", "/api/v1/password_resets")
		status, body := ts.call(t, "POST", "/api/v1/password_resets", "", map[string]string{"email": addr, "lang": "en"})
		if status != http.StatusAccepted {
			t.Fatalf("reset for %s: %d %s", addr, status, body)
		}
		answers = append(answers, string(body))
		trips = append(trips, ts.roundTrips(t, "POST", "/api/v1/password_resets")-before)
	}
	if answers[0] != answers[1] {
		t.Errorf("the answers for an unknown and a known address differ: %q, %q", answers[0], answers[1])
	}
	if trips[0] != trips[1] || trips[0] == 0 {
		t.Errorf("round trips to Redis for an unknown and a known address: %v, want the same", trips)
	}
	confirmation := smtp.WaitFor(t, "forgetful@example.com").File
	m := smtp.WaitFor(t, "forgetful@example.com", confirmation)
	if got := m.Header.Get("Subject"); !strings.Contains(got, "Reset your password") {
		t.Fatalf("reset mail's subject %q", got)
	}
	if !strings.Contains(m.Header.Get("From"), "noreply@example.edu") {
		t.Errorf("From %q", m.Header.Get("From"))
	}
	// The queue is worked in order: the unknown address's job is done.
	for _, msg := range smtp.Messages(t) {
		if strings.Contains(strings.Join(msg.To, ","), "nobody@") {
			t.Fatalf("a mail went to an address no account has: %s", msg.File)
		}
	}
	link := mailedLink(t, ts, m)
	reset := "/api/v1/password_resets/" + tokenOf(link)
	if status, body := ts.call(t, "POST", reset, "", map[string]string{"password": "short"}); status != http.StatusBadRequest || !strings.Contains(string(body), "invalid_password") {
		t.Fatalf("a too short password: %d %s", status, body)
	}
	const newPassword = "a brand new secret"
	if status, body := ts.call(t, "POST", reset, "", map[string]string{"password": newPassword}); status != http.StatusNoContent {
		t.Fatalf("reset: %d %s", status, body)
	}
	for name, tok := range map[string]string{"first": token, "second": second.Token} {
		if status, _ := ts.call(t, "GET", "/api/v1/me", tok, nil); status != http.StatusUnauthorized {
			t.Errorf("the %s session after the reset: %d, want 401", name, status)
		}
	}
	if resp := ts.do(t, "GET", "/api/v1/accounts/verify_credentials", oauth, nil, nil); resp.StatusCode != http.StatusUnauthorized {
		t.Errorf("the OAuth token after the reset: %d, want 401", resp.StatusCode)
	}
	if status, _ := ts.call(t, "POST", "/api/v1/sessions", "", map[string]string{"username": "forgetful", "password": testPassword}); status != http.StatusUnauthorized {
		t.Errorf("the old password after the reset: %d, want 401", status)
	}
	if status, body := ts.call(t, "POST", "/api/v1/sessions", "", map[string]string{"username": "forgetful", "password": newPassword}); status != http.StatusOK {
		t.Errorf("the new password: %d %s", status, body)
	}
	if status, body := ts.call(t, "POST", reset, "", map[string]string{"password": "yet another secret"}); status != http.StatusBadRequest || !strings.Contains(string(body), "invalid_token") {
		t.Errorf("the link used again: %d %s", status, body)
	}
	if status, html := ts.linkPage(t, link, nil); status != http.StatusBadRequest || !strings.Contains(html, "not valid") {
		t.Errorf("the page of a used link: %d\n%s", status, html)
	}
}

// TestPasswordResetPage resets a password through the mailed link's plain
// page, in Chinese, as a browser without JavaScript does; a second link
// made before the change is void after it.
func TestPasswordResetPage(t *testing.T) {
	parallel(t)
	ts, smtp := mailServer(t)
	token, _ := ts.register(t, "页面用户")
	confirmEmail(t, ts, smtp, token, "page@example.com")
	seen := []string{smtp.WaitFor(t, "page@example.com").File}
	var links []string
	for range 2 {
		if status, body := ts.call(t, "POST", "/api/v1/password_resets", "", map[string]string{"email": "page@example.com", "lang": "zh-CN"}); status != http.StatusAccepted {
			t.Fatalf("reset: %d %s", status, body)
		}
		m := smtp.WaitFor(t, "page@example.com", seen...)
		seen = append(seen, m.File)
		if !strings.Contains(m.Header.Get("Subject"), "=?") { // RFC 2047: the subject is Chinese
			t.Errorf("subject %q is not encoded", m.Header.Get("Subject"))
		}
		if !strings.Contains(m.Body, "重置") || !strings.Contains(m.Body, "页面用户") {
			t.Errorf("the mail is not in Chinese or names not the user:\n%s", m.Body)
		}
		links = append(links, mailedLink(t, ts, m))
	}
	status, html := ts.linkPage(t, links[0], nil)
	if status != http.StatusOK || !strings.Contains(html, `lang="zh"`) || !strings.Contains(html, "设置新密码") {
		t.Fatalf("GET %s: %d\n%s", links[0], status, html)
	}
	if status, html := ts.linkPage(t, links[0], url.Values{"password": {"short"}}); status != http.StatusBadRequest || !strings.Contains(html, "8 到 128") {
		t.Fatalf("a too short password on the page: %d\n%s", status, html)
	}
	if status, html := ts.linkPage(t, links[0], url.Values{"password": {"新的密码很长很长"}}); status != http.StatusOK || !strings.Contains(html, "密码已更改") {
		t.Fatalf("POST the page: %d\n%s", status, html)
	}
	if status, _ := ts.call(t, "POST", "/api/v1/sessions", "", map[string]string{"username": "页面用户", "password": "新的密码很长很长"}); status != http.StatusOK {
		t.Errorf("the new password: %d", status)
	}
	if status, _ := ts.linkPage(t, links[1], url.Values{"password": {"another long one"}}); status != http.StatusBadRequest {
		t.Errorf("a second link made before the change: %d, want 400", status)
	}
}

// TestEmailConfirmationFirstWins: two accounts set one address; the one
// that confirms first has it, the other's confirmation is refused (409
// email_taken) and leaves it without the address. Once the owner's
// account is deleted, the address is free to confirm.
func TestEmailConfirmationFirstWins(t *testing.T) {
	parallel(t)
	ts, smtp := mailServer(t)
	a, _ := ts.register(t, "claimer_a")
	b, _ := ts.register(t, "claimer_b")
	const addr = "shared@example.com"
	var links, seen []string
	for _, tok := range []string{a, b} {
		if status, body := ts.call(t, "PATCH", "/api/v1/me", tok, map[string]string{"email": addr}); status != http.StatusOK {
			t.Fatalf("PATCH /me: %d %s", status, body)
		}
		m := smtp.WaitFor(t, addr, seen...)
		seen = append(seen, m.File)
		links = append(links, mailedLink(t, ts, m))
	}
	if status, body := ts.call(t, "POST", "/api/v1/email_confirmations/"+tokenOf(links[1]), "", nil); status != http.StatusOK {
		t.Fatalf("b confirms: %d %s", status, body)
	}
	status, html := ts.linkPage(t, links[0], url.Values{})
	if status != http.StatusConflict || !strings.Contains(html, "Another account") {
		t.Fatalf("a confirms after b: %d\n%s", status, html)
	}
	_, body := ts.call(t, "GET", "/api/v1/me", a, nil)
	if strings.Contains(string(body), `"email":"`+addr) {
		t.Errorf("a has the address b confirmed: %s", body)
	}
	// b's account goes, and its address with it: a may confirm it now.
	if status, body := ts.call(t, "DELETE", "/api/v1/me", b, map[string]string{"password": testPassword}); status != http.StatusNoContent {
		t.Fatalf("delete b: %d %s", status, body)
	}
	if status, body := ts.call(t, "PATCH", "/api/v1/me", a, map[string]string{"email": addr}); status != http.StatusOK {
		t.Fatalf("PATCH /me again: %d %s", status, body)
	}
	link := mailedLink(t, ts, smtp.WaitFor(t, addr, seen...))
	if status, body := ts.call(t, "POST", "/api/v1/email_confirmations/"+tokenOf(link), "", nil); status != http.StatusOK || !strings.Contains(string(body), `"username":"claimer_a"`) {
		t.Fatalf("a confirms once b is gone: %d %s", status, body)
	}
}

// TestMailUnavailable: without an SMTP server the routes answer 503
// mail_unavailable, an address in PATCH /me changes nothing else of the
// request, and the front ends are told (providers' mail false).
func TestMailUnavailable(t *testing.T) {
	parallel(t)
	ts := newTestServer(t)
	token, _ := ts.register(t, "nomail")
	for _, c := range []struct {
		method, path, token string
		body                any
	}{
		{"POST", "/api/v1/password_resets", "", map[string]string{"email": "a@example.com"}},
		{"POST", "/api/v1/password_resets/abc", "", map[string]string{"password": "long enough secret"}},
		{"POST", "/api/v1/email_confirmations/abc", "", nil},
		{"PATCH", "/api/v1/me", token, map[string]string{"email": "a@example.com", "bio": "changed"}},
	} {
		status, body := ts.call(t, c.method, c.path, c.token, c.body)
		if status != http.StatusServiceUnavailable || !strings.Contains(string(body), "mail_unavailable") {
			t.Errorf("%s %s: %d %s, want 503 mail_unavailable", c.method, c.path, status, body)
		}
	}
	if _, body := ts.call(t, "GET", "/api/v1/me", token, nil); strings.Contains(string(body), "changed") {
		t.Errorf("the bio changed beside a refused address: %s", body)
	}
	if _, body := ts.call(t, "GET", "/api/v1/auth/providers", "", nil); !strings.Contains(string(body), `"mail":false`) {
		t.Errorf("providers: %s", body)
	}
	if status, html := ts.linkPage(t, "/auth/reset/abc", nil); status != http.StatusServiceUnavailable || !strings.Contains(html, "sends no mail") {
		t.Errorf("the reset page: %d\n%s", status, html)
	}
}

// TestEmailBadInput: what the rules refuse gets a clear error and changes
// nothing; reset requests past the client's limit get 429.
func TestEmailBadInput(t *testing.T) {
	parallel(t)
	ts, _ := mailServer(t, "MICROBLOG_RATE_LIMITS=password_reset=3/1h")
	token, _ := ts.register(t, "badinput")
	for _, addr := range []string{"plain", "a@b", "two@@example.com", "Ann <ann@example.com>", "sp ace@example.com",
		"ctl\x01@example.com", strings.Repeat("x", 250) + "@example.com", "a@.example.com"} {
		status, body := ts.call(t, "PATCH", "/api/v1/me", token, map[string]string{"email": addr, "bio": "changed"})
		if status != http.StatusBadRequest || !strings.Contains(string(body), "invalid_email") {
			t.Errorf("PATCH /me email %q: %d %s, want 400 invalid_email", addr, status, body)
		}
		status, body = ts.call(t, "POST", "/api/v1/password_resets", "", map[string]string{"email": addr})
		if status != http.StatusBadRequest || !strings.Contains(string(body), "invalid_email") {
			t.Errorf("reset for %q: %d %s, want 400 invalid_email", addr, status, body)
		}
	}
	_, body := ts.call(t, "GET", "/api/v1/me", token, nil)
	if strings.Contains(string(body), "changed") || !strings.Contains(string(body), `"email":""`) {
		t.Errorf("/me after refused addresses: %s", body)
	}
	for _, c := range []struct{ path, body string }{
		{"/api/v1/password_resets", `{}`},
		{"/api/v1/password_resets", `{"email": 7}`},
		{"/api/v1/password_resets", `[]`},
		{"/api/v1/password_resets/x", `{}`},
		{"/api/v1/password_resets/x", `{"password": "long enough secret"}`},
	} {
		if status, body := ts.call(t, "POST", c.path, "", c.body); status != http.StatusBadRequest {
			t.Errorf("POST %s %s: %d %s, want 400", c.path, c.body, status, body)
		}
	}
	for i := range 4 {
		status, body := ts.call(t, "POST", "/api/v1/password_resets", "", map[string]string{"email": "someone@example.com"})
		if want := map[bool]int{true: http.StatusAccepted, false: http.StatusTooManyRequests}[i < 3]; status != want {
			t.Fatalf("reset request %d: %d %s, want %d", i+1, status, body, want)
		}
	}
}

// TestMailOverSTARTTLS sends through an SMTP server that requires STARTTLS
// and then AUTH, as a real relay does: the mail arrives over TLS, sent by
// the user of MICROBLOG_SMTP_URL, the server's certificate checked against
// MICROBLOG_SMTP_CA.
func TestMailOverSTARTTLS(t *testing.T) {
	parallel(t)
	smtp := smtptest.StartTLS(t, "relay-user", "relay secret")
	ts := newTestServer(t, "MICROBLOG_SMTP_URL=smtp://relay-user:relay%20secret@"+smtp.Addr(),
		"MICROBLOG_SMTP_CA="+smtp.CAFile, "MICROBLOG_MAIL_FROM=noreply@example.edu")
	token, _ := ts.register(t, "tls_user")
	if status, body := ts.call(t, "PATCH", "/api/v1/me", token, map[string]string{"email": "tls@example.com"}); status != http.StatusOK {
		t.Fatalf("PATCH /me: %d %s", status, body)
	}
	m := smtp.WaitFor(t, "tls@example.com")
	if tls, auth := m.Header.Get("X-Test-TLS"), m.Header.Get("X-Test-Auth"); tls != "yes" || auth != "relay-user" {
		t.Errorf("the mail came with TLS %q as %q, want yes as relay-user", tls, auth)
	}
	mailedLink(t, ts, m)
}

// TestMailConfig: bad mail settings stop the server at start with a
// message naming the setting, never showing the SMTP password.
func TestMailConfig(t *testing.T) {
	parallel(t)
	for _, c := range []struct {
		env  map[string]string
		want string
	}{
		{map[string]string{"MICROBLOG_SMTP_URL": "http://mail.example.com"}, "MICROBLOG_SMTP_URL"},
		{map[string]string{"MICROBLOG_SMTP_URL": "smtp://user:hunter2secret@mail.example.com:99999"}, "MICROBLOG_SMTP_URL"},
		{map[string]string{"MICROBLOG_SMTP_URL": "smtp://mail.example.com/path"}, "MICROBLOG_SMTP_URL"},
		{map[string]string{"MICROBLOG_SMTP_URL": "smtp://mail.example.com"}, "MICROBLOG_MAIL_FROM is missing"},
		{map[string]string{"MICROBLOG_SMTP_URL": "smtp://mail.example.com", "MICROBLOG_MAIL_FROM": "not an address"}, "MICROBLOG_MAIL_FROM"},
		{map[string]string{"MICROBLOG_SMTP_URL": "smtp://mail.example.com", "MICROBLOG_MAIL_FROM": "a@example.com", "MICROBLOG_SMTP_CA": "/nonexistent/ca.pem"}, "MICROBLOG_SMTP_CA"},
		{map[string]string{"MICROBLOG_PUBLIC_URL": "weibo.example.edu"}, "MICROBLOG_PUBLIC_URL"},
		{map[string]string{"MICROBLOG_PUBLIC_URL": "https://weibo.example.edu/path"}, "MICROBLOG_PUBLIC_URL"},
		{map[string]string{"MICROBLOG_MAIL_RETRY_WAIT": "soon"}, "MICROBLOG_MAIL_RETRY_WAIT"},
		{map[string]string{"MICROBLOG_RATE_LIMITS": "password_reset=5"}, "MICROBLOG_RATE_LIMITS"},
	} {
		_, err := loadConfig(nil, func(k string) string { return c.env[k] }, io.Discard)
		if err == nil || !strings.Contains(err.Error(), c.want) || strings.Contains(err.Error(), "hunter2") {
			t.Errorf("%v: %v, want an error naming %s (without the password)", c.env, err, c.want)
		}
	}
	cfg, err := loadConfig(nil, func(k string) string {
		return map[string]string{"MICROBLOG_SMTP_URL": "smtps://u:p@mail.example.com", "MICROBLOG_MAIL_FROM": "Microblog <a@example.com>",
			"MICROBLOG_PUBLIC_URL": "https://weibo.example.edu/", "MICROBLOG_RATE_LIMITS": "password_reset=2/1m"}[k]
	}, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	if s := cfg.Mail.SMTP; s == nil || s.Port != 465 || !s.ImplicitTLS || s.Username != "u" || s.Password != "p" || s.From != "Microblog <a@example.com>" {
		t.Errorf("SMTP %+v", cfg.Mail.SMTP)
	}
	if got := cfg.Mail.PublicURL(); got != "https://weibo.example.edu" {
		t.Errorf("public URL %q", got)
	}
	if got := cfg.RateLimits.PasswordReset; got.N != 2 || got.Per != time.Minute {
		t.Errorf("password_reset limit %+v", got)
	}
}

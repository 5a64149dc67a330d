package main

import (
	"io"
	"net/http"
	"strings"
	"testing"

	"microblog/server/ldapauth/ldaptest"
)

// ldapEnv are the settings of a server signing in against srv by the DN
// template.
func ldapEnv(srv *ldaptest.Server) []string {
	return []string{"MICROBLOG_LDAP_URL=" + srv.URL(), "MICROBLOG_LDAP_USER_DN=uid={username}," + ldaptest.People}
}

// ldapLogin is POST /sessions with provider ldap.
func ldapLogin(name, password string) map[string]string {
	return map[string]string{"username": name, "password": password, "provider": "ldap"}
}

// sessionOf decodes a login's answer: the user's id and name, and the token.
func sessionOf(t *testing.T, body []byte) (int64, string, string) {
	t.Helper()
	var out struct {
		User struct {
			ID       int64
			Username string
		} `json:"user"`
		Token string `json:"token"`
	}
	mustDecode(t, body, &out)
	if out.User.ID == 0 || out.Token == "" {
		t.Fatalf("no session in %s", body)
	}
	return out.User.ID, out.User.Username, out.Token
}

// TestLDAPLogin: the first LDAP login makes the account and a session (with
// the cookie), the next finds the same account; a wrong password is 401, a
// local user of the same name is another account whose password the
// directory knows nothing of, and with the directory down it is 503, never
// a local fallback.
func TestLDAPLogin(t *testing.T) {
	parallel(t)
	dir := ldaptest.Start(t, true)
	ts := newTestServer(t, ldapEnv(dir)...)
	pw := ldaptest.Passwords["alice"]

	// A local "alice" first: the directory's alice must not become her.
	localTok, localID := ts.register(t, "alice")

	resp := ts.do(t, "POST", "/api/v1/sessions", "", ldapLogin("alice", pw), nil)
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("first LDAP login: %d %s", resp.StatusCode, body)
	}
	if c := resp.Header.Get("Set-Cookie"); !strings.Contains(c, "auth=") || !strings.Contains(c, "HttpOnly") {
		t.Fatalf("no session cookie: %q", c)
	}
	uid, name, tok := sessionOf(t, body)
	if uid == localID || name != "alice_2" {
		t.Fatalf("LDAP alice became user %d %q; the local alice is %d", uid, name, localID)
	}
	var me struct{ ID int64 }
	ts.getJSON(t, tok, "/api/v1/me", &me)
	if me.ID != uid {
		t.Fatalf("/me is %d, want %d", me.ID, uid)
	}
	status, body := ts.call(t, "POST", "/api/v1/sessions", "", ldapLogin("ALICE", pw))
	if status != http.StatusOK {
		t.Fatalf("second LDAP login: %d %s", status, body)
	}
	if again, _, _ := sessionOf(t, body); again != uid {
		t.Fatalf("second LDAP login is user %d, want %d", again, uid)
	}

	ts.wantStatus(t, "POST", "/api/v1/sessions", "", ldapLogin("alice", "wrong password"), 401, "invalid_credentials")
	ts.wantStatus(t, "POST", "/api/v1/sessions", "", ldapLogin("alice", ""), 401, "invalid_credentials")
	ts.wantStatus(t, "POST", "/api/v1/sessions", "", ldapLogin("*)(uid=*))(|(uid=*", pw), 401, "invalid_credentials")
	// The local password opens the local account only; the directory's
	// password is no local one, and the local one no directory one.
	ts.wantStatus(t, "POST", "/api/v1/sessions", "", ldapLogin("alice", testPassword), 401, "invalid_credentials")
	ts.wantStatus(t, "POST", "/api/v1/sessions", "", map[string]string{"username": "alice", "password": pw}, 401, "invalid_credentials")
	ts.wantStatus(t, "POST", "/api/v1/sessions", "", map[string]string{"username": "alice_2", "password": pw}, 401, "invalid_credentials")
	ts.wantStatus(t, "GET", "/api/v1/me", localTok, nil, 200, "")

	dir.Kill()
	ts.wantStatus(t, "POST", "/api/v1/sessions", "", ldapLogin("alice", pw), 503, "unavailable")
	ts.wantStatus(t, "POST", "/api/v1/sessions", "", ldapLogin("alice", testPassword), 503, "unavailable")
}

// TestLDAPLoginGuard: wrong LDAP passwords count against the name under the
// login guard as local ones do, and leave the local account of that name
// alone.
func TestLDAPLoginGuard(t *testing.T) {
	parallel(t)
	dir := ldaptest.Start(t, false)
	ts := newTestServer(t, append(ldapEnv(dir), "MICROBLOG_RATE_LIMITS=login=1000/1m,login_account=3/1m")...)
	ts.register(t, "bob")
	for range 3 {
		ts.wantStatus(t, "POST", "/api/v1/sessions", "", ldapLogin("bob", "wrong password"), 401, "invalid_credentials")
	}
	ts.wantStatus(t, "POST", "/api/v1/sessions", "", ldapLogin("bob", ldaptest.Passwords["bob"]), 429, "rate_limited")
	ts.wantStatus(t, "POST", "/api/v1/sessions", "", map[string]string{"username": "bob", "password": testPassword}, 200, "")
}

// TestLDAPProviderRefused: provider ldap on a server without LDAP, and an
// unknown provider, are 400.
func TestLDAPProviderRefused(t *testing.T) {
	parallel(t)
	ts := newTestServer(t)
	ts.wantStatus(t, "POST", "/api/v1/sessions", "", ldapLogin("alice", "whatever-1"), 400, "invalid_field")
	ts.wantStatus(t, "POST", "/api/v1/sessions", "", map[string]string{"username": "a", "password": "whatever-1", "provider": "kerberos"}, 400, "invalid_field")
	var out providersResponse
	ts.getJSON(t, "", "/api/v1/auth/providers", &out)
	if !out.LocalSignup || out.Providers == nil || len(out.Providers) != 0 {
		t.Fatalf("providers without any configured: %+v", out)
	}
}

// TestProvidersAndClosedSignup: the providers list shows the directory
// (linked for a signed-in user who signed in there), and with local sign-up
// off POST /users is 403 signup_closed while LDAP logins still make
// accounts.
func TestProvidersAndClosedSignup(t *testing.T) {
	parallel(t)
	dir := ldaptest.Start(t, false)
	ts := newTestServer(t, append(ldapEnv(dir), "MICROBLOG_LOCAL_SIGNUP=false", "MICROBLOG_LDAP_NAME=Example U")...)
	ts.wantStatus(t, "POST", "/api/v1/users", "", map[string]string{"username": "mallory", "password": testPassword}, 403, "signup_closed")

	var anon providersResponse
	ts.getJSON(t, "", "/api/v1/auth/providers", &anon)
	if anon.LocalSignup || len(anon.Providers) != 1 {
		t.Fatalf("providers: %+v", anon)
	}
	if p := anon.Providers[0]; p.ID != "ldap" || p.Name != "Example U" || p.Kind != "password" || p.LoginURL != "" || p.Linked != nil {
		t.Fatalf("LDAP entry: %+v", p)
	}
	status, body := ts.call(t, "POST", "/api/v1/sessions", "", ldapLogin("carol smith", ldaptest.Passwords["carol smith"]))
	if status != http.StatusOK {
		t.Fatalf("LDAP login with sign-up closed: %d %s", status, body)
	}
	_, name, tok := sessionOf(t, body)
	if name != "carolsmith" {
		t.Fatalf("carol smith became %q", name)
	}
	var mine providersResponse
	ts.getJSON(t, tok, "/api/v1/auth/providers", &mine)
	if len(mine.Providers) != 1 || mine.Providers[0].Linked == nil || !*mine.Providers[0].Linked {
		t.Fatalf("providers for a linked user: %+v", mine)
	}
}

// TestAuthConfig: local sign-up may be off only beside a provider, and the
// LDAP settings are checked at start, each error naming its variable.
func TestAuthConfig(t *testing.T) {
	parallel(t)
	for _, c := range []struct {
		env  map[string]string
		want string
	}{
		{map[string]string{"MICROBLOG_LOCAL_SIGNUP": "false"}, "MICROBLOG_LOCAL_SIGNUP"},
		{map[string]string{"MICROBLOG_LOCAL_SIGNUP": "no"}, "MICROBLOG_LOCAL_SIGNUP"},
		{map[string]string{"MICROBLOG_LDAP_URL": "ldap://x"}, "MICROBLOG_LDAP_USER_DN"},
		{map[string]string{"MICROBLOG_LDAP_URL": "x", "MICROBLOG_LDAP_USER_DN": "uid={username}"}, "MICROBLOG_LDAP_URL"},
		{map[string]string{"MICROBLOG_LDAP_USER_DN": "uid={username}"}, "MICROBLOG_LDAP_URL"},
		{map[string]string{"MICROBLOG_LDAP_URL": "ldap://x", "MICROBLOG_LDAP_USER_DN": "uid={username}", "MICROBLOG_LDAP_TIMEOUT": "1ms"}, "MICROBLOG_LDAP_TIMEOUT"},
	} {
		_, err := loadConfig(nil, func(k string) string { return c.env[k] }, io.Discard)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%v: %v, want an error naming %s", c.env, err, c.want)
		}
	}
	env := map[string]string{"MICROBLOG_LOCAL_SIGNUP": "false", "MICROBLOG_LDAP_URL": "ldaps://ldap.example.edu",
		"MICROBLOG_LDAP_SEARCH_BASE": "dc=example,dc=edu", "MICROBLOG_LDAP_SEARCH_FILTER": "(sAMAccountName={username})"}
	cfg, err := loadConfig(nil, func(k string) string { return env[k] }, io.Discard)
	if err != nil || cfg.Auth.LocalSignup || cfg.Auth.LDAP == nil || cfg.Auth.LDAPName != defaultLDAPName {
		t.Fatalf("good settings: %+v, %v", cfg.Auth, err)
	}
	if cfg, _ := loadConfig(nil, func(string) string { return "" }, io.Discard); !cfg.Auth.LocalSignup || cfg.Auth.LDAP != nil {
		t.Fatalf("defaults: %+v", cfg.Auth)
	}
}

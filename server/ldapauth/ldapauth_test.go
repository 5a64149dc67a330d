package ldapauth_test

import (
	"context"
	"errors"
	"net"
	"strings"
	"testing"
	"time"

	"microblog/server/ldapauth"
	"microblog/server/ldapauth/ldaptest"
	"microblog/store"
)

// modes are the two ways of finding a person's entry: the DN template, and
// a search (as the service account, and anonymously).
func modes(url string) map[string]ldapauth.Config {
	return map[string]ldapauth.Config{
		"template": {URL: url, UserDN: "uid={username}," + ldaptest.People},
		"search": {URL: url, SearchBase: ldaptest.Suffix, SearchFilter: "(&(objectClass=inetOrgPerson)(uid={username}))",
			BindDN: ldaptest.ReaderDN, BindPassword: ldaptest.ReaderPassword},
		"anonymous search": {URL: url, SearchBase: ldaptest.People, SearchFilter: "(uid={username})"},
	}
}

func newDirectory(t *testing.T, cfg ldapauth.Config) *ldapauth.Directory {
	t.Helper()
	d, err := ldapauth.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return d
}

// TestAuthenticate: the right password signs in with the entry's
// entryUUID as subject, the same each time; a wrong or empty password, an
// unknown user and names that try to inject DN or filter syntax are all
// invalid_credentials. slapd here takes an empty password as an anonymous
// bind, so the empty one shows the client refuses it itself.
func TestAuthenticate(t *testing.T) {
	srv := ldaptest.Start(t, true)
	ctx := context.Background()
	for mode, cfg := range modes(srv.URL()) {
		t.Run(mode, func(t *testing.T) {
			d := newDirectory(t, cfg)
			subjects := map[string]string{}
			for uid, pw := range ldaptest.Passwords {
				sub, name, err := d.Authenticate(ctx, uid, pw)
				if err != nil {
					t.Fatalf("%s: %v", uid, err)
				}
				if name != uid || len(sub) != 36 || strings.Count(sub, "-") != 4 {
					t.Fatalf("%s: subject %q, name %q; want an entryUUID", uid, sub, name)
				}
				again, _, err := d.Authenticate(ctx, uid, pw)
				if err != nil || again != sub {
					t.Fatalf("%s again: %q, %v", uid, again, err)
				}
				subjects[sub] = uid
			}
			if len(subjects) != len(ldaptest.Passwords) {
				t.Fatalf("subjects not distinct: %v", subjects)
			}
			for _, c := range [][2]string{
				{"alice", "wrong-password"},
				{"alice", ""},
				{"bob", ldaptest.Passwords["alice"]},
				{"nobody", "whatever-1"},
				{"", "whatever-1"},
				{"*", ldaptest.Passwords["alice"]},
				{"a*", ldaptest.Passwords["alice"]},
				{"*)(uid=*))(|(uid=*", ldaptest.Passwords["alice"]},
				{"alice)(|(objectClass=*)", ldaptest.Passwords["alice"]},
				{"alice,ou=people", ldaptest.Passwords["alice"]},
				{"alice,ou=x", ldaptest.Passwords["alice"]},
				{"x,uid=alice", ldaptest.Passwords["alice"]},
				{"alice+cn=alice", ldaptest.Passwords["alice"]},
				{"a\x00", ldaptest.Passwords["alice"]},
				{"alice\x00", ldaptest.Passwords["alice"]},
				{`alice\`, ldaptest.Passwords["alice"]},
				{"cn=reader," + ldaptest.Suffix, ldaptest.ReaderPassword},
				{strings.Repeat("a", 1000), "whatever-1"},
			} {
				_, _, err := d.Authenticate(ctx, c[0], c[1])
				if !errors.Is(err, store.ErrBadCredential) {
					t.Errorf("%q / %q: %v, want invalid_credentials", c[0], c[1], err)
				}
			}
		})
	}
}

// TestAuthenticateDown: a directory that is down, or that does not answer,
// is unavailable (503), never a wrong password.
func TestAuthenticateDown(t *testing.T) {
	srv := ldaptest.Start(t, false)
	ctx := context.Background()
	dirs := map[string]*ldapauth.Directory{}
	for mode, cfg := range modes(srv.URL()) {
		dirs[mode] = newDirectory(t, cfg)
	}
	srv.Kill()
	for mode, d := range dirs {
		_, _, err := d.Authenticate(ctx, "alice", ldaptest.Passwords["alice"])
		if !errors.Is(err, store.ErrUnavailable) || errors.Is(err, store.ErrUnauthorized) {
			t.Errorf("%s: %v, want unavailable", mode, err)
		}
	}
	// A service account with a wrong password is the operator's fault: 503.
	cfg := modes(srv.URL())["search"]
	srv2 := ldaptest.Start(t, false)
	cfg.URL, cfg.BindPassword = srv2.URL(), "wrong"
	if _, _, err := newDirectory(t, cfg).Authenticate(ctx, "alice", ldaptest.Passwords["alice"]); !errors.Is(err, store.ErrUnavailable) {
		t.Errorf("wrong service password: %v, want unavailable", err)
	}
}

// TestAuthenticateHangs: a directory that accepts connections and says
// nothing is unavailable after the timeout.
func TestAuthenticateHangs(t *testing.T) {
	l := listenSilently(t)
	d := newDirectory(t, ldapauth.Config{URL: "ldap://" + l, UserDN: "uid={username},dc=x", Timeout: 300 * time.Millisecond})
	start := time.Now()
	_, _, err := d.Authenticate(context.Background(), "alice", "password")
	if !errors.Is(err, store.ErrUnavailable) || time.Since(start) > 5*time.Second {
		t.Fatalf("%v after %s, want unavailable soon", err, time.Since(start))
	}
}

// TestNewChecksSettings: each wrong setting is refused, naming it.
func TestNewChecksSettings(t *testing.T) {
	for _, c := range []struct {
		cfg  ldapauth.Config
		want string
	}{
		{ldapauth.Config{URL: "http://x", UserDN: "uid={username}"}, "MICROBLOG_LDAP_URL"},
		{ldapauth.Config{URL: "ldap://"}, "MICROBLOG_LDAP_URL"},
		{ldapauth.Config{URL: "ldap://x"}, "MICROBLOG_LDAP_USER_DN"},
		{ldapauth.Config{URL: "ldap://x", UserDN: "uid=alice"}, "MICROBLOG_LDAP_USER_DN"},
		{ldapauth.Config{URL: "ldap://x", UserDN: "uid={username}", SearchBase: "dc=x"}, "MICROBLOG_LDAP_SEARCH_BASE"},
		{ldapauth.Config{URL: "ldap://x", SearchBase: "dc=x", SearchFilter: "(uid=alice)"}, "MICROBLOG_LDAP_SEARCH_FILTER"},
		{ldapauth.Config{URL: "ldap://x", SearchBase: "dc=x", SearchFilter: "uid={username}))"}, "MICROBLOG_LDAP_SEARCH_FILTER"},
		{ldapauth.Config{URL: "ldap://x", UserDN: "uid={username}", SearchFilter: "(uid={username})"}, "MICROBLOG_LDAP_SEARCH_FILTER"},
		{ldapauth.Config{URL: "ldap://x", SearchBase: "dc=x", SearchFilter: "(uid={username})", BindDN: "cn=r"}, "MICROBLOG_LDAP_BIND_PASSWORD"},
		{ldapauth.Config{URL: "ldaps://x", UserDN: "uid={username}", CAFile: "/nonexistent.pem"}, "MICROBLOG_LDAP_CA_FILE"},
	} {
		_, err := ldapauth.New(c.cfg)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%+v: %v, want an error naming %s", c.cfg, err, c.want)
		}
	}
}

// listenSilently accepts connections on a loopback port and never answers,
// as a hung directory would; it returns host:port.
func listenSilently(t *testing.T) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	var conns []net.Conn
	done := make(chan struct{})
	go func() {
		defer close(done)
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			conns = append(conns, c)
		}
	}()
	t.Cleanup(func() {
		l.Close()
		<-done
		for _, c := range conns {
			c.Close()
		}
	})
	return l.Addr().String()
}

package main

import (
	"net/url"
	"slices"
	"strings"
	"testing"

	"microblog/server/federation/fedifytest"
	"microblog/store"
)

// TestFedifySuggestions: "Who to follow" (the native suggestions, the
// Mastodon API's v1 and v2 suggestions) lists local accounts only: not
// the partner's account, though local users follow it more than anyone,
// before and after an operator blocks its domain; nor a suspended local
// account. A local account followed less is listed.
func TestFedifySuggestions(t *testing.T) {
	parallel(t)
	p := fedifytest.Shared(t)
	ts := fedifyServer(t, "MICROBLOG_ADMINS=boss")
	boss, _ := ts.register(t, "boss")
	newbie, _ := ts.register(t, "newbie")
	ts.register(t, "star")
	ts.register(t, "rising")
	fedi := p.NewUser(t, fedifytest.UserOptions{})
	for _, name := range []string{"fan1", "fan2", "fan3"} {
		tok, _ := ts.register(t, name)
		ts.followRemote(t, tok, name, fedi)
		ts.follow(t, tok, "star", true)
	}
	fan, _ := ts.register(t, "fan4")
	ts.follow(t, fan, "rising", true)

	native := func() []string {
		var page store.Page[store.User]
		ts.getJSON(t, newbie, "/api/v1/suggestions/users?limit=10", &page)
		var names []string
		for _, u := range page.Items {
			names = append(names, u.Username)
		}
		return names
	}
	tok := ts.mastodonToken(t, "newbie", newbie, "")
	mastodon := func() (v1, v2 []string) {
		var accounts []struct{ Acct string }
		ts.mastodonJSON(t, "GET", "/api/v1/suggestions?limit=10", tok, nil, &accounts)
		for _, a := range accounts {
			v1 = append(v1, a.Acct)
		}
		var suggestions []struct{ Account struct{ Acct string } }
		ts.mastodonJSON(t, "GET", "/api/v2/suggestions?limit=10", tok, nil, &suggestions)
		for _, s := range suggestions {
			v2 = append(v2, s.Account.Acct)
		}
		return v1, v2
	}
	check := func(when string, want, not []string) {
		t.Helper()
		v1, v2 := mastodon()
		for what, got := range map[string][]string{"native": native(), "Mastodon v1": v1, "Mastodon v2": v2} {
			for _, w := range want {
				if !slices.Contains(got, w) {
					t.Errorf("%s, %s suggestions %v lack %s", when, what, got, w)
				}
			}
			for _, n := range not {
				if slices.ContainsFunc(got, func(g string) bool { return strings.EqualFold(g, n) }) {
					t.Errorf("%s, %s suggestions %v list %s", when, what, got, n)
				}
			}
			if slices.ContainsFunc(got, func(g string) bool { return strings.Contains(g, "@") }) {
				t.Errorf("%s, %s suggestions %v list a remote account", when, what, got)
			}
		}
	}
	check("at first", []string{"star", "rising"}, []string{fedi.Handle, "newbie"})

	ts.wantStatus(t, "POST", "/api/v1/admin/users/star/suspend", boss, nil, 204, "")
	check("star suspended", []string{"rising"}, []string{fedi.Handle, "star"})

	domain := fedi.Handle[strings.IndexByte(fedi.Handle, '@')+1:]
	ts.wantStatus(t, "PUT", "/api/v1/admin/domain_blocks/"+url.PathEscape(domain), boss, nil, 200, "")
	check("its domain blocked", []string{"rising"}, []string{fedi.Handle, "star"})
}

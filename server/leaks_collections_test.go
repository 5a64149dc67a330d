package main

import (
	"net/http"
	"slices"
	"strconv"
	"testing"

	"microblog/server/mastodon"
)

// TestProtectedCollections (CONTRACT.md §17, docs/security.md): whom a
// protected account follows and who follows it are seen, as its posts
// are, by itself and its approved fans alone: to anyone else (an
// anonymous reader, a user who is not its fan, one it blocks) both lists
// are empty, through both APIs, while the profile keeps its counts. An
// open account's lists stay open.
func TestProtectedCollections(t *testing.T) {
	parallel(t)
	ts := newTestServer(t)
	pia, piaM, piaID := ts.bothTokens(t, "pia")
	ann, annM, _ := ts.bothTokens(t, "ann") // pia's approved fan
	bob, bobM, _ := ts.bothTokens(t, "bob") // no fan of hers
	eve, eveM, _ := ts.bothTokens(t, "eve") // blocked by pia
	ts.register(t, "carol")
	ts.follow(t, ann, "pia", true)
	ts.follow(t, pia, "carol", true)
	ts.wantStatus(t, "PATCH", "/api/v1/me", pia, map[string]any{"protected": true}, http.StatusOK, "")
	ts.wantStatus(t, "PUT", "/api/v1/users/eve/block", pia, nil, http.StatusNoContent, "")
	ts.follow(t, eve, "carol", true)

	readers := []struct {
		who          string
		native, mast string
		sees         bool
	}{
		{"pia herself", pia, piaM, true},
		{"her approved fan", ann, annM, true},
		{"a user who is not her fan", bob, bobM, false},
		{"a user she blocks", eve, eveM, false},
		{"an anonymous reader", "", "", false},
	}
	lists := map[string][]string{"followers": {"ann"}, "following": {"carol"}}
	mastodonPath := "/api/v1/accounts/" + strconv.FormatInt(piaID, 10) + "/"
	for _, r := range readers {
		for list, want := range lists {
			if !r.sees {
				want = nil
			}
			if got := ts.userNames(t, r.native, "/api/v1/users/pia/"+list); !slices.Equal(got, want) {
				t.Errorf("native %s of pia for %s: %v, want %v", list, r.who, got, want)
			}
			var accts []mastodon.Account
			ts.mastodonJSON(t, "GET", mastodonPath+list, r.mast, nil, &accts)
			var got []string
			for _, a := range accts {
				got = append(got, a.Username)
			}
			if !slices.Equal(got, want) {
				t.Errorf("Mastodon %s of pia for %s: %v, want %v", list, r.who, got, want)
			}
		}
		if u := ts.userAs(t, r.native, "pia"); u.FollowersCount != 1 || u.FollowingCount != 1 {
			t.Errorf("pia's profile for %s: %d followers, %d following", r.who, u.FollowersCount, u.FollowingCount)
		}
	}
	// carol's (open) lists name everyone, eve included, for bob.
	if got := ts.userNames(t, bob, "/api/v1/users/carol/followers"); !slices.Equal(got, []string{"eve", "pia"}) {
		t.Errorf("carol's followers for bob: %v", got)
	}
}

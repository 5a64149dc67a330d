package mastodon

import (
	"slices"
	"strconv"
	"strings"

	"microblog/store"
)

// scopeSet is the scopes a token was granted: Mastodon's top-level scopes
// (read, write, follow, push) and their sub-scopes (read:statuses ...).
type scopeSet map[string]bool

// parseScopes reads a space-separated scope list ("read write:statuses").
func parseScopes(s string) scopeSet {
	set := make(scopeSet)
	for _, f := range strings.Fields(s) {
		set[f] = true
	}
	return set
}

// followScopes are what the legacy follow scope grants.
var followScopes = map[string]bool{
	"read:blocks": true, "write:blocks": true, "read:follows": true,
	"write:follows": true, "read:mutes": true, "write:mutes": true,
}

// allows tells whether the set grants scope: itself, its top-level scope
// (read grants read:statuses), or follow for what follow covers.
func (s scopeSet) allows(scope string) bool {
	if s[scope] {
		return true
	}
	if top, _, ok := strings.Cut(scope, ":"); ok && s[top] {
		return true
	}
	return s["follow"] && followScopes[scope]
}

// String is the set as a space-separated list, in a stable order.
func (s scopeSet) String() string {
	var out []string
	for _, k := range knownScopes {
		if s[k] {
			out = append(out, k)
		}
	}
	return strings.Join(out, " ")
}

// knownScopes are the scopes this API knows, top-level ones first.
var knownScopes = []string{
	"read", "write", "follow", "push", "profile",
	"read:accounts", "read:blocks", "read:bookmarks", "read:favourites", "read:filters",
	"read:follows", "read:lists", "read:mutes", "read:notifications", "read:search", "read:statuses",
	"write:accounts", "write:blocks", "write:bookmarks", "write:conversations", "write:favourites",
	"write:filters", "write:follows", "write:lists", "write:media", "write:mutes",
	"write:notifications", "write:reports", "write:statuses",
}

// scopesOf is the set of a list of scopes.
func scopesOf(list []string) scopeSet {
	set := make(scopeSet, len(list))
	for _, s := range list {
		set[s] = true
	}
	return set
}

// known tells whether scope is one of Mastodon's.
func known(scope string) bool { return slices.Contains(knownScopes, scope) }

// grantsScope is the OAuth server's scope rule (fosite's ScopeStrategy): an
// app whose scopes are have may be granted want when want is a scope this
// API knows and have allows it (read allows read:statuses).
func grantsScope(have []string, want string) bool {
	return known(want) && scopesOf(have).allows(want)
}

// checkScopes reads an app's scope list (POST /api/v1/apps): "read" when
// empty, as Mastodon defaults; an unknown scope is refused.
func checkScopes(s string) ([]string, error) {
	list := strings.Fields(s)
	if len(list) == 0 {
		return []string{"read"}, nil
	}
	var out []string
	for _, f := range list {
		if !known(f) {
			return nil, store.Invalid(store.CodeInvalidField, "unknown scope "+strconv.Quote(f))
		}
		if !slices.Contains(out, f) {
			out = append(out, f)
		}
	}
	return out, nil
}

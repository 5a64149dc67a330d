package mastodon

import (
	"testing"
)

// TestScopesAllow: a scope allows itself, its top-level scope allows its
// sub-scopes, and follow allows what Mastodon's legacy follow scope covers.
func TestScopesAllow(t *testing.T) {
	for _, c := range []struct {
		have, want string
		ok         bool
	}{
		{"read", "read", true},
		{"read", "read:statuses", true},
		{"read", "write:statuses", false},
		{"read:statuses", "read", false},
		{"read:statuses", "read:accounts", false},
		{"write:statuses read", "write:statuses", true},
		{"write:statuses", "write:media", false},
		{"follow", "write:follows", true},
		{"follow", "read:blocks", true},
		{"follow", "write:statuses", false},
		{"push", "read", false},
	} {
		if got := parseScopes(c.have).allows(c.want); got != c.ok {
			t.Errorf("%q allows %q: %v, want %v", c.have, c.want, got, c.ok)
		}
	}
}

// TestGrantsScope: an app may be granted a known scope its own scopes
// allow, never an unknown one.
func TestGrantsScope(t *testing.T) {
	app := []string{"read", "write:statuses"}
	for want, ok := range map[string]bool{
		"read": true, "read:notifications": true, "write:statuses": true,
		"write": false, "write:media": false, "follow": false, "offline_access": false, "read:nonsense": false,
	} {
		if got := grantsScope(app, want); got != ok {
			t.Errorf("app %v granted %q: %v, want %v", app, want, got, ok)
		}
	}
}

// TestCheckScopes: an app's scopes default to read, repeat once, and must
// be known.
func TestCheckScopes(t *testing.T) {
	if got, err := checkScopes(""); err != nil || len(got) != 1 || got[0] != "read" {
		t.Fatalf("no scopes: %v %v", got, err)
	}
	if got, err := checkScopes("read  write read\nfollow"); err != nil || scopesOf(got).String() != "read write follow" || len(got) != 3 {
		t.Fatalf("%v %v", got, err)
	}
	if _, err := checkScopes("read admin:read"); err == nil {
		t.Fatal("an unknown scope was taken")
	}
}

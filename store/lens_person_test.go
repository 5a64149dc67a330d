package store

import "testing"

// TestHidesPerson: a person in a list attached to a post (likers,
// reposters) is left out where a post of theirs would be: across a block
// either way, when suspended, when protected but for itself and its
// approved fans; a mute hides nothing there.
func TestHidesPerson(t *testing.T) {
	const me, other = 1, 2
	reader := &Lens{Viewer: me, Hidden: map[int64]bool{3: true}, Muted: map[int64]bool{other: true}}
	for _, c := range []struct {
		name string
		lens *Lens
		a    Author
		want bool
	}{
		{"anyone, anonymous", nil, Author{ID: other}, false},
		{"anyone, muted", reader, Author{ID: other}, false},
		{"blocked or blocking", reader, Author{ID: 3}, true},
		{"suspended, anonymous", nil, Author{ID: other, Suspended: true}, true},
		{"suspended", reader, Author{ID: other, Suspended: true}, true},
		{"suspended, oneself", reader, Author{ID: me, Suspended: true}, false},
		{"protected, anonymous", nil, Author{ID: other, Protected: true}, true},
		{"protected, not a fan", reader, Author{ID: other, Protected: true}, true},
		{"protected, approved fan", reader, Author{ID: other, Protected: true, Approved: true}, false},
		{"protected, oneself", reader, Author{ID: me, Protected: true}, false},
	} {
		if got := c.lens.HidesPerson(c.a); got != c.want {
			t.Errorf("%s: HidesPerson = %v, want %v", c.name, got, c.want)
		}
	}
}

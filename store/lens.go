package store

import (
	"strings"
	"sync"
	"unicode/utf8"

	"golang.org/x/text/cases"
)

// Place is where a reader meets a post: which of the safety rules apply.
type Place uint8

// The places. Blocks and suspensions apply everywhere; mutes and word
// filters only where a user's own feed is made for them, and mutes in
// search too; protected authors never appear in a public place, and
// elsewhere only to their approved fans.
const (
	// InView is a profile, a post and its comments, a list of likers: what
	// a reader opens on purpose.
	InView Place = iota
	// InFeed is the home timeline, its live feed and replay, and the
	// notifications: what arrives on its own.
	InFeed
	// InPublic is the public and tag timelines: everyone's.
	InPublic
	// InSearch is a search of posts: everyone's, less the muted, and a
	// protected author's for its approved fans (CONTRACT.md §10).
	InSearch
	// InHome is the home timeline and its replay: InFeed, less the posts
	// and reposts of the members of the reader's exclusive lists
	// (Lens.Excluded), which their lists show instead, and less comments
	// (a followed topic's set holds them for the topic's page).
	InHome
)

// Lens is what one reader may see: the one rule every path that shows a
// post, a comment or a notification to someone goes through (the reads of
// the store, the live feed and its replay). A nil *Lens is an anonymous
// reader's.
//
// The rule about authors (blocked, suspended, protected) needs to know
// them: Author.Protected and Author.Suspended are filled by whoever loads
// the post, and Author.Approved says the reader may see a protected
// author's posts (it is them or one of their fans).
type Lens struct {
	Viewer int64
	// Hidden are the users the reader blocks or who block the reader.
	Hidden map[int64]bool
	// Muted are the users the reader mutes.
	Muted map[int64]bool
	// Words are the reader's filtered words, case-folded (FoldWord); they
	// do not change once the lens is in use.
	Words []string
	// Excluded are the members of the reader's exclusive lists: their
	// posts and reposts leave its home timeline (InHome) and live home
	// feed, and stay in those lists (Mastodon's exclusive lists).
	Excluded map[int64]bool

	matchOnce sync.Once
	match     *wordMatcher // Words as one matcher, built on first use
}

// Hides tells whether the reader must not see p at place at. A repost is
// hidden when its original would be: passing a post on does not get round
// a block, a mute, a filter or a protected account.
func (l *Lens) Hides(p *Post, at Place) bool {
	if p == nil {
		return false
	}
	if at == InHome {
		// Whose post it is, not whose original: a repost by someone else of
		// an excluded member's post stays, as in Mastodon.
		if p.Kind == KindComment || l != nil && l.Excluded[p.Author.ID] {
			return true
		}
		at = InFeed
	}
	if l.hidesOne(p, at) {
		return true
	}
	if o := p.RepostOf; o != nil && !o.Deleted && l.hidesOne(o, at) {
		return true
	}
	return false
}

// hidesOne is Hides for one message, leaving its original aside.
func (l *Lens) hidesOne(p *Post, at Place) bool {
	a := p.Author
	if a.Suspended && !l.is(a.ID) {
		return true
	}
	if a.Protected && (at == InPublic || !a.Approved && !l.is(a.ID)) {
		return true
	}
	if l == nil {
		return false
	}
	if l.Hidden[a.ID] {
		return true
	}
	// Mutes and filters are about others' words: a reader's own posts stay
	// in its feed whatever words it filters (as Mastodon's feeds do).
	switch {
	case l.is(a.ID):
		return false
	case at == InFeed:
		return l.Muted[a.ID] || l.Filters(p.Content)
	case at == InSearch:
		return l.Muted[a.ID]
	}
	return false
}

// is tells whether uid is the reader.
func (l *Lens) is(uid int64) bool { return l != nil && l.Viewer != 0 && l.Viewer == uid }

// HidesUser tells whether the reader must not meet uid in a list of users
// (search, suggestions) or as the actor of something at place at.
func (l *Lens) HidesUser(uid int64, at Place) bool {
	if l == nil {
		return false
	}
	return l.Hidden[uid] || at == InFeed && l.Muted[uid]
}

// HidesPerson tells whether the reader must not meet a in a list of people
// attached to a post (its likers, its reposters): what a did there is seen
// where a post of theirs would be (InView). So a leaves the list when one
// of the two blocks the other, when a is suspended, or when a is protected
// and the reader is neither a nor one of its approved fans: a.Protected,
// a.Suspended and a.Approved are filled as for a post's author.
func (l *Lens) HidesPerson(a Author) bool {
	return l.hidesOne(&Post{Author: a}, InView)
}

// HidesNotification tells whether n leaves the reader's notifications: its
// actor is hidden or muted, or its post is one the reader's feed hides.
func (l *Lens) HidesNotification(n *Notification) bool {
	return l.HidesUser(n.Actor.ID, InFeed) || n.Post != nil && l.Hides(n.Post, InFeed)
}

// FilteredOnly tells whether the reader's word filters, and nothing else,
// hide p at place at: a page of the reader's own feed keeps such a post,
// marked Post.Filtered, for the reader to open on purpose (its filter is its
// own choice, as in Mastodon's "filtered" statuses), where it drops a post
// that a block, a mute or a protected account hides.
func (l *Lens) FilteredOnly(p *Post, at Place) bool {
	if l == nil || len(l.Words) == 0 || !l.Hides(p, at) {
		return false
	}
	bare := &Lens{Viewer: l.Viewer, Hidden: l.Hidden, Muted: l.Muted, Excluded: l.Excluded}
	return !bare.Hides(p, at)
}

// Filters tells whether content carries one of the reader's filtered words,
// in any letter case and any script.
func (l *Lens) Filters(content string) bool {
	if l == nil || len(l.Words) == 0 || content == "" {
		return false
	}
	l.matchOnce.Do(func() { l.match = newWordMatcher(l.Words) })
	return l.match.in(FoldWord(content))
}

// FoldWord is s case-folded (Unicode full case folding, so that "STRASSE"
// and "straße" meet): the form word filters are kept and compared in.
func FoldWord(s string) string {
	for i := 0; i < len(s); i++ {
		if s[i] >= utf8.RuneSelf {
			return cases.Fold().String(s)
		}
	}
	return strings.ToLower(s)
}

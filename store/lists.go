package store

import (
	"context"
	"fmt"
	"strings"
	"unicode/utf8"
)

// Lists (关注分组, Mastodon's lists) are a user's own groups of the people
// it follows, each with a timeline of their posts. They are private: only
// their owner sees or changes them, so a list id of another user's is
// ErrListNotFound.
type Lists interface {
	// CreateList makes a list of uid's; 409 list_limit past MaxLists.
	CreateList(ctx context.Context, uid int64, nl NewList) (List, error)
	// Lists are uid's lists, oldest first.
	Lists(ctx context.Context, uid int64) ([]List, error)
	// List is uid's list lid.
	List(ctx context.Context, uid, lid int64) (List, error)
	// UpdateList changes what ch sets of uid's list lid.
	UpdateList(ctx context.Context, uid, lid int64, ch ListChange) (List, error)
	// DeleteList removes uid's list lid and its members (not the follows).
	DeleteList(ctx context.Context, uid, lid int64) error
	// AddListMembers adds members to uid's list lid, all or none: each must
	// be someone uid follows (400 not_following), and the list holds at
	// most MaxListMembers (409 list_members_limit). Adding one twice is
	// no error.
	AddListMembers(ctx context.Context, uid, lid int64, members []int64) error
	// RemoveListMembers takes members out of uid's list lid (idempotent).
	RemoveListMembers(ctx context.Context, uid, lid int64, members []int64) error
	// ListMembers is a page of the members of uid's list lid, newest
	// added first.
	ListMembers(ctx context.Context, uid, lid int64, q PageQuery) (Page[User], error)
	// ListMemberIDs are the uids of the members of uid's list lid.
	ListMemberIDs(ctx context.Context, uid, lid int64) ([]int64, error)
	// ListsWith are those of uid's lists that hold member, oldest first.
	ListsWith(ctx context.Context, uid, member int64) ([]List, error)
	// ListTimeline is a page of the posts of the members of uid's list
	// lid, newest first, as uid sees them in its home timeline.
	ListTimeline(ctx context.Context, uid, lid int64, q PageQuery) (Page[Post], error)
}

// Limits of lists.
const (
	MaxLists         = 50   // lists one user may have
	MaxListMembers   = 1000 // members one list may hold
	MaxListTitleLen  = 100  // characters of a list's title
	MaxListsPerWrite = 100  // accounts one request may add or remove
)

// Replies policies of a list, as Mastodon names them: which replies its
// timeline shows. This service's timelines carry no replies (comments live
// under their post), so the policy is kept and given back, and changes
// nothing.
const (
	RepliesFollowed = "followed"
	RepliesList     = "list"
	RepliesNone     = "none"
)

// Error codes of lists.
const (
	CodeListNotFound     Code = "list_not_found"     // ErrNotFound
	CodeListLimit        Code = "list_limit"         // ErrConflict
	CodeListMembersLimit Code = "list_members_limit" // ErrConflict
	CodeNotFollowing     Code = "not_following"      // ErrInvalid
	CodeInvalidTitle     Code = "invalid_title"      // ErrInvalid
	CodeInvalidPolicy    Code = "invalid_replies_policy"
)

// Errors of lists.
var (
	ErrListNotFound     = NewError(ErrNotFound, CodeListNotFound, "no such list")
	ErrListLimit        = NewError(ErrConflict, CodeListLimit, fmt.Sprintf("you have %d lists already", MaxLists))
	ErrListMembersLimit = NewError(ErrConflict, CodeListMembersLimit, fmt.Sprintf("a list holds at most %d accounts", MaxListMembers))
	ErrNotFollowing     = NewError(ErrInvalid, CodeNotFollowing, "only accounts you follow can be added to a list")
)

// List is one of a user's lists.
type List struct {
	ID            int64  `json:"id"`
	Title         string `json:"title"`
	RepliesPolicy string `json:"replies_policy"`
	Exclusive     bool   `json:"exclusive"`
	MembersCount  int    `json:"members_count"`
}

// NewList is what a user asks a new list to be.
type NewList struct {
	Title         string
	RepliesPolicy string // "" is RepliesList, as in Mastodon
	Exclusive     bool
}

// ListChange is what an update of a list sets; nil fields stay.
type ListChange struct {
	Title         *string
	RepliesPolicy *string
	Exclusive     *bool
}

// Check applies the rules of lists to nl, filling in the default policy.
func (nl *NewList) Check() error {
	t, err := CheckListTitle(nl.Title)
	if err != nil {
		return err
	}
	nl.Title = t
	if nl.RepliesPolicy == "" {
		nl.RepliesPolicy = RepliesList
	}
	return CheckRepliesPolicy(nl.RepliesPolicy)
}

// Check applies the rules of lists to what ch sets.
func (ch *ListChange) Check() error {
	if ch.Title != nil {
		t, err := CheckListTitle(*ch.Title)
		if err != nil {
			return err
		}
		ch.Title = &t
	}
	if ch.RepliesPolicy != nil {
		return CheckRepliesPolicy(*ch.RepliesPolicy)
	}
	return nil
}

// CheckListTitle returns the title trimmed of white space: 1 to
// MaxListTitleLen characters of valid UTF-8 without control characters.
func CheckListTitle(title string) (string, error) {
	t := strings.TrimSpace(title)
	switch {
	case !utf8.ValidString(t) || strings.ContainsFunc(t, func(r rune) bool { return r < 0x20 || r == 0x7f }):
		return "", Invalid(CodeInvalidTitle, "a list's title must be text without control characters")
	case t == "" || strings.TrimFunc(t, invisible) == "":
		return "", Invalid(CodeInvalidTitle, "a list needs a title")
	case utf8.RuneCountInString(t) > MaxListTitleLen:
		return "", Invalid(CodeInvalidTitle, fmt.Sprintf("a list's title must be at most %d characters", MaxListTitleLen))
	}
	return t, nil
}

// invisible tells the characters a title of only them would not show.
func invisible(r rune) bool {
	return r == 0x200b || r == 0x200c || r == 0x200d || r == 0xfeff || r == 0x3164 || r == 0x2800 || r == 0x3000
}

// CheckRepliesPolicy tells whether p is one of the replies policies.
func CheckRepliesPolicy(p string) error {
	switch p {
	case RepliesFollowed, RepliesList, RepliesNone:
		return nil
	}
	return Invalid(CodeInvalidPolicy, "replies_policy must be followed, list or none")
}

// CheckListAccounts checks the number of accounts one request adds or
// removes: 1 to MaxListsPerWrite.
func CheckListAccounts(n int) error {
	if n < 1 || n > MaxListsPerWrite {
		return Invalid(CodeInvalidField, fmt.Sprintf("give 1 to %d accounts", MaxListsPerWrite))
	}
	return nil
}

// EventListMembers, on notify:<uid>, says who is in one of the user's
// lists now: the live feed routes its list streams by it. The native feed
// does not forward it.
const EventListMembers = "list_members"

// ListMembersData is the data of a list_members event: every member of
// list ListID as it is now (none once Deleted).
type ListMembersData struct {
	ListID  int64   `json:"list_id"`
	Members []int64 `json:"members"`
	Deleted bool    `json:"deleted,omitempty"`
}

// EventListPost is, on the native live feed, a post or repost by a member
// of one of the user's exclusive lists (List.Exclusive): a Post, as the
// event post carries it, that is not for the home timeline but for the
// page of that list. The hub makes it of the author's post event for
// those users alone; the store never publishes it.
const EventListPost = "list_post"

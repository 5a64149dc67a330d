package store

import (
	"context"
	"errors"
	"strings"
	"unicode"
	"unicode/utf8"
)

// MaxFollowedTags is how many topics one user may follow at once: each one
// is one more set its home timeline merges.
const MaxFollowedTags = 100

// ErrUnprocessable is a request well formed but refused by a rule about
// what the user already has (422), as Mastodon answers one.
var ErrUnprocessable = errors.New("unprocessable")

// Codes of the followed topics.
const (
	CodeInvalidTag     Code = "invalid_tag"      // ErrInvalid
	CodeTagFollowLimit Code = "tag_follow_limit" // ErrUnprocessable
)

// ErrTagFollowLimit is a follow of one topic more than MaxFollowedTags.
var ErrTagFollowLimit = NewError(ErrUnprocessable, CodeTagFollowLimit,
	"you follow as many topics as one may (100); unfollow one first")

// FollowedTag is a topic a user follows: its key (TagKey) and when.
type FollowedTag struct {
	Name       string `json:"name"`
	FollowedAt Time   `json:"followed_at"`
}

// FollowedTags are the topics users follow: the posts that carry them join
// the follower's home timeline and live feed, under its safety rules.
type FollowedTags interface {
	// FollowTag makes uid follow tag (on) or not, idempotent, and returns
	// its key; 422 tag_follow_limit past MaxFollowedTags.
	FollowTag(ctx context.Context, uid int64, tag string, on bool) (string, error)
	// FollowedTags is a page of the topics uid follows, newest follow first.
	FollowedTags(ctx context.Context, uid int64, q PageQuery) (Page[FollowedTag], error)
	// FollowsTags tells, for each of keys (TagKey), whether uid follows it.
	FollowsTags(ctx context.Context, uid int64, keys []string) ([]bool, error)
}

// CheckTagName checks the name of a topic as a client names it to follow
// or look it up, and returns its key (TagKey): a leading # (and the closing
// # of a #话题#) is dropped; what is left is 1 to MaxTagLen characters of
// UTF-8 without #, control characters or spaces at its ends.
func CheckTagName(name string) (string, error) {
	if !utf8.ValidString(name) {
		return "", Invalid(CodeInvalidTag, "the topic is not valid UTF-8 text")
	}
	name = strings.TrimSpace(name)
	if strings.HasPrefix(name, "#") {
		name = strings.TrimSuffix(strings.TrimPrefix(name, "#"), "#")
	}
	name = strings.TrimSpace(name)
	n := utf8.RuneCountInString(name)
	if n == 0 || n > MaxTagLen {
		return "", Invalid(CodeInvalidTag, "a topic is 1 to 50 characters")
	}
	if strings.ContainsRune(name, '#') || strings.ContainsFunc(name, unicode.IsControl) {
		return "", Invalid(CodeInvalidTag, "a topic holds no # and no control characters")
	}
	return TagKey(name), nil
}

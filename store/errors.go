package store

import (
	"errors"
	"fmt"
	"time"
)

// Kinds of failure. Every error the store or the server returns for a
// caller's mistake, or for an outage, wraps one of these with %w; the server
// maps each kind to one HTTP status in one table (server/errors.go).
var (
	ErrInvalid          = errors.New("invalid input")
	ErrUnauthorized     = errors.New("unauthorized")
	ErrForbidden        = errors.New("forbidden")
	ErrNotFound         = errors.New("not found")
	ErrMethodNotAllowed = errors.New("method not allowed")
	ErrConflict         = errors.New("conflict")
	ErrTooLarge         = errors.New("too large")
	ErrUnsupported      = errors.New("unsupported media type")
	ErrRateLimited      = errors.New("rate limited")
	ErrUnavailable      = errors.New("database unavailable")
)

// Code is the machine-readable code of the contract's error body. Every code
// the service answers with is listed here.
type Code string

// The codes, by kind: ErrInvalid's first, then each other kind's.
const (
	CodeBadRequest         Code = "bad_request"
	CodeInvalidBody        Code = "invalid_body"
	CodeInvalidJSON        Code = "invalid_json"
	CodeInvalidField       Code = "invalid_field"
	CodeInvalidUTF8        Code = "invalid_utf8"
	CodeInvalidUsername    Code = "invalid_username"
	CodeInvalidPassword    Code = "invalid_password"
	CodeInvalidContent     Code = "invalid_content"
	CodeContentEmpty       Code = "content_empty"
	CodeContentTooLong     Code = "content_too_long"
	CodeInvalidBio         Code = "invalid_bio"
	CodeBioTooLong         Code = "bio_too_long"
	CodeInvalidRepost      Code = "invalid_repost"
	CodeInvalidIdemKey     Code = "invalid_idempotency_key"
	CodeIdemKeyReused      Code = "idempotency_key_reused"
	CodeInvalidLimit       Code = "invalid_limit"
	CodeInvalidCursor      Code = "invalid_cursor"
	CodeInvalidAfter       Code = "invalid_after"
	CodeInvalidSeen        Code = "invalid_seen"
	CodeCannotFollowSelf   Code = "cannot_follow_self"
	CodeInvalidImage       Code = "invalid_image"
	CodeInvalidMedia       Code = "invalid_media"
	CodeInvalidQuery       Code = "invalid_query"
	CodeNotWebSocket       Code = "not_websocket"
	CodeCannotBlockSelf    Code = "cannot_block_self"
	CodeInvalidFilter      Code = "invalid_filter"
	CodeInvalidReason      Code = "invalid_reason"
	CodeInvalidReport      Code = "invalid_report"
	CodeCannotMessageSelf  Code = "cannot_message_self"
	CodeUnauthorized       Code = "unauthorized"        // ErrUnauthorized
	CodeInvalidCredentials Code = "invalid_credentials" // ErrUnauthorized
	CodeForbidden          Code = "forbidden"           // ErrForbidden
	CodeNotAuthor          Code = "not_author"          // ErrForbidden
	CodeCrossOrigin        Code = "cross_origin"        // ErrForbidden
	CodeSignupClosed       Code = "signup_closed"       // ErrForbidden
	CodeBlocked            Code = "blocked"             // ErrForbidden
	CodeSuspended          Code = "suspended"           // ErrForbidden
	CodeNotAdmin           Code = "not_admin"           // ErrForbidden
	CodeProtected          Code = "protected"           // ErrForbidden
	CodeDMsClosed          Code = "messages_closed"     // ErrForbidden
	CodeNotFound           Code = "not_found"           // ErrNotFound
	CodePostNotFound       Code = "post_not_found"      // ErrNotFound
	CodeUserNotFound       Code = "user_not_found"      // ErrNotFound
	CodeReportNotFound     Code = "report_not_found"    // ErrNotFound
	CodeDMNotFound         Code = "message_not_found"   // ErrNotFound
	CodeMethodNotAllowed   Code = "method_not_allowed"  // ErrMethodNotAllowed
	CodeConflict           Code = "conflict"            // ErrConflict
	CodeUsernameTaken      Code = "username_taken"      // ErrConflict
	CodeRequestInProgress  Code = "request_in_progress" // ErrConflict
	CodeAlreadyReposted    Code = "already_reposted"    // ErrConflict
	CodeIdentityTaken      Code = "identity_taken"      // ErrConflict
	CodeBlockLimit         Code = "block_limit"         // ErrConflict
	CodeMuteLimit          Code = "mute_limit"          // ErrConflict
	CodeEditLimit          Code = "edit_limit"          // ErrConflict
	CodePinLimit           Code = "pin_limit"           // ErrConflict
	CodeNotYours           Code = "not_yours"           // ErrForbidden
	CodeMediaTooLarge      Code = "media_too_large"     // ErrTooLarge
	CodeBodyTooLarge       Code = "body_too_large"      // ErrTooLarge
	CodeUnsupportedMedia   Code = "unsupported_media_type"
	CodeRateLimited        Code = "rate_limited" // ErrRateLimited
	CodeUnavailable        Code = "unavailable"  // ErrUnavailable
	CodeStorageFull        Code = "storage_full" // ErrUnavailable
	// CodeArchiveUnavailable is a read that needs the archive (past the hot
	// window) while it does not answer.
	CodeArchiveUnavailable Code = "archive_unavailable" // ErrUnavailable
	// CodeArchiveBacklog is a new message refused because the archive has
	// been away so long that its queue reached its cap.
	CodeArchiveBacklog Code = "archive_backlog" // ErrUnavailable
	CodeInternal       Code = "internal"        // anything else: a bug of ours

	// Search (CONTRACT.md §10).
	CodeSearchUnavailable Code = "search_unavailable" // ErrUnavailable
)

// Error is a failure with a code and a message for people. It wraps one of
// the kinds above.
type Error struct {
	Kind    error
	Code    Code
	Message string
}

func (e *Error) Error() string { return e.Message }
func (e *Error) Unwrap() error { return e.Kind }

// NewError returns an error of kind with code and message.
func NewError(kind error, code Code, msg string) *Error {
	return &Error{Kind: kind, Code: code, Message: msg}
}

// Invalid is an ErrInvalid with code and message.
func Invalid(code Code, msg string) *Error { return NewError(ErrInvalid, code, msg) }

// Errors that several places return alike.
var (
	ErrPostNotFound   = NewError(ErrNotFound, CodePostNotFound, "no such post")
	ErrUserNotFound   = NewError(ErrNotFound, CodeUserNotFound, "no such user")
	ErrNotLoggedIn    = NewError(ErrUnauthorized, CodeUnauthorized, "not logged in")
	ErrBadCredential  = NewError(ErrUnauthorized, CodeInvalidCredentials, "wrong username or password")
	ErrUsernameTaken  = NewError(ErrConflict, CodeUsernameTaken, "that username is taken")
	ErrFollowSelf     = NewError(ErrInvalid, CodeCannotFollowSelf, "you cannot follow or unfollow yourself")
	ErrNotAuthor      = NewError(ErrForbidden, CodeNotAuthor, "only the author can delete a message")
	ErrInProgress     = NewError(ErrConflict, CodeRequestInProgress, "a request with this Idempotency-Key is still being handled")
	ErrReposted       = NewError(ErrConflict, CodeAlreadyReposted, "you have reposted this post already; delete that repost to repost it again")
	ErrIdentityTaken  = NewError(ErrConflict, CodeIdentityTaken, "that account of the other sign-in service is linked to another user")
	ErrStorageFull    = NewError(ErrUnavailable, CodeStorageFull, "the database is full and takes no writes for now; try again later")
	ErrBlocked        = NewError(ErrForbidden, CodeBlocked, "you cannot do that: one of you blocks the other")
	ErrSuspended      = NewError(ErrForbidden, CodeSuspended, "this account is suspended")
	ErrNotAdmin       = NewError(ErrForbidden, CodeNotAdmin, "only the service's operators can do that")
	ErrProtected      = NewError(ErrForbidden, CodeProtected, "posts of a protected account cannot be reposted")
	ErrBlockSelf      = NewError(ErrInvalid, CodeCannotBlockSelf, "you cannot block or mute yourself")
	ErrReportNotFound = NewError(ErrNotFound, CodeReportNotFound, "no such report")
	ErrIdemKeyReused  = NewError(ErrInvalid, CodeIdemKeyReused, "this Idempotency-Key was used for another request (another body or route); use a new key for a new request")

	// ErrArchiveUnavailable is what the archive's errors wrap while it does
	// not answer: whatever needs it (a page past the hot window, an old post,
	// its likes, a search) answers 503 with this code, while posting and the
	// hot window go on.
	ErrArchiveUnavailable = NewError(ErrUnavailable, CodeArchiveUnavailable, "the archive of older posts is not answering; try again later")
	ErrArchiveBacklog     = NewError(ErrUnavailable, CodeArchiveBacklog, "the archive has been away so long that no more posts can wait for it; try again later")
	ErrSearchUnavailable  = NewError(ErrUnavailable, CodeSearchUnavailable, "search needs the archive, which this server runs without (MICROBLOG_ARCHIVE=off)")
)

// Limit is a rate: at most N requests per Per.
type Limit struct {
	N   int
	Per time.Duration
}

// RateLimitError says a caller must wait RetryAfter before trying again.
type RateLimitError struct{ RetryAfter time.Duration }

func (e *RateLimitError) Error() string {
	return fmt.Sprintf("too many requests; try again in %s", e.RetryAfter.Round(time.Second))
}
func (e *RateLimitError) Unwrap() error { return ErrRateLimited }

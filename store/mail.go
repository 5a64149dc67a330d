package store

import (
	"context"
	"net/mail"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"
)

// Email addresses and the mail the service sends: the confirmation of an
// address and the link that resets a forgotten password (CONTRACT.md §15).
// The links carry random tokens that the store keeps only as hashes
// (TokenHash); the mail itself goes out off the request path, from a queue
// (MailJob), so that a request for a password reset takes the same work
// whether the address is known or not.

// The codes of email addresses and their mail. They live here, beside the
// rules they belong to, rather than in errors.go.
const (
	CodeInvalidEmail    Code = "invalid_email"    // ErrInvalid
	CodeInvalidToken    Code = "invalid_token"    // ErrInvalid: a link unknown, used or expired
	CodeEmailTaken      Code = "email_taken"      // ErrConflict: another account confirmed the address first
	CodeMailUnavailable Code = "mail_unavailable" // ErrUnavailable: the server has no SMTP server
)

// Limits of email addresses and their links.
const (
	MaxEmail = 254 // bytes (RFC 5321's path limit less its brackets)
	// ResetValid is how long a password reset link works.
	ResetValid = time.Hour
	// ConfirmValid is how long an address's confirmation link works.
	ConfirmValid = 24 * time.Hour
)

// ErrMailUnavailable answers every route that sends mail while the server
// has no SMTP server (MICROBLOG_SMTP_URL).
var ErrMailUnavailable = NewError(ErrUnavailable, CodeMailUnavailable, "this server sends no mail (no SMTP server is configured)")

// ErrInvalidToken answers a link that is unknown, used or expired alike.
var ErrInvalidToken = Invalid(CodeInvalidToken, "this link is not valid: it was used already, has expired, or was replaced by a newer one")

// ErrEmailTaken answers the confirmation of an address that another
// account confirmed first.
var ErrEmailTaken = NewError(ErrConflict, CodeEmailTaken, "another account has confirmed this address already")

// CheckEmail returns the address as it will be kept (spaces around it
// trimmed), or an invalid_email error: a plain address (local@domain, no
// display name, no comments), at most MaxEmail bytes, printable, with a
// domain of at least two labels. An empty address is valid: it removes
// the user's address.
func CheckEmail(address string) (string, error) {
	a := strings.TrimSpace(address)
	if a == "" {
		return "", nil
	}
	bad := func(why string) (string, error) { return "", Invalid(CodeInvalidEmail, "email "+why) }
	if len(a) > MaxEmail || !utf8.ValidString(a) {
		return bad("must be valid UTF-8 of at most 254 bytes")
	}
	for _, r := range a {
		if unicode.IsSpace(r) || !unicode.IsPrint(r) {
			return bad("must have no spaces or control characters")
		}
	}
	p, err := mail.ParseAddress(a)
	if err != nil || p.Name != "" || p.Address != a {
		return bad("must be a plain address such as name@example.com")
	}
	at := strings.LastIndexByte(a, '@')
	domain := a[at+1:]
	if at > 64 || !strings.Contains(domain, ".") || strings.HasPrefix(domain, ".") || strings.HasSuffix(domain, ".") {
		return bad("must be a plain address such as name@example.com")
	}
	return a, nil
}

// EmailKey is the form under which an address is unique: lower-cased
// whole, as most mail services treat the part before the @ too.
func EmailKey(address string) string { return strings.ToLower(address) }

// EmailState is a user's own address, shown only to the user (/me).
type EmailState struct {
	// Address is the confirmed address (where resets are mailed); empty:
	// none.
	Address string `json:"email"`
	// Pending is an address set but not confirmed yet; empty: none.
	Pending string `json:"email_pending"`
}

// The kinds of mail.
const (
	MailConfirm = "confirm" // a link that confirms an address
	MailReset   = "reset"   // a link that resets a forgotten password
)

// MailJob is one mail to send, as queued: a confirmation of To for UID,
// or a password reset for whichever account confirmed To (none: nothing is
// sent). Lang is the language to write it in ("en", "zh"); At when it was
// asked for (unix ms).
type MailJob struct {
	Kind string
	UID  int64
	To   string
	Lang string
	At   int64
}

// MailLink is what a mail carries: the token of its link (known only to
// the mail; the store keeps its hash), the address and the account.
type MailLink struct {
	Kind     string
	To       string
	Token    string
	Username string
	Lang     string
}

// Mail keeps users' addresses and the tokens of the links mailed to them.
type Mail interface {
	// Email is uid's address state.
	Email(ctx context.Context, uid int64) (EmailState, error)
	// SetEmail sets the address uid wants (CheckEmail first) and queues
	// its confirmation mail, written in lang; the confirmed address stays
	// until the new one is confirmed. The confirmed address itself clears
	// what is pending; an empty address removes both.
	SetEmail(ctx context.Context, uid int64, address, lang string) (EmailState, error)
	// RequestPasswordReset queues a reset mail for address, with the same
	// work whether an account confirmed it or not.
	RequestPasswordReset(ctx context.Context, address, lang string) error
	// CheckMailToken tells whether a link's token of kind is valid now,
	// without using it up (the page that shows the link's form); it
	// returns the address and account it is for.
	CheckMailToken(ctx context.Context, kind, token string) (MailLink, error)
	// ConfirmEmail confirms the address of a confirmation token, once:
	// ErrInvalidToken when the token is unknown, used, expired or no longer
	// the user's pending address; ErrEmailTaken when another account
	// confirmed the address first.
	ConfirmEmail(ctx context.Context, token string) (User, error)
	// ResetPassword sets the password of a reset token's account, once,
	// and ends every session of the account (its OAuth tokens too).
	ResetPassword(ctx context.Context, token, password string) error
}

// MailDeliveries is what the delivery of mail jobs reads.
type MailDeliveries interface {
	// IssueMailLink makes the link job's mail carries: false when there is
	// nothing to send (no account confirmed a reset's address; a
	// confirmation's address is no longer the one pending).
	IssueMailLink(ctx context.Context, job MailJob) (MailLink, bool, error)
}

package api

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"net/http"
	"strconv"
	"strings"

	"github.com/labstack/echo/v4"

	"microblog/server/mail"
	"microblog/store"
)

// Email addresses and forgotten passwords (CONTRACT.md §15): an address is
// set with PATCH /me {"email"} and confirmed by the link mailed to it; a
// reset is asked for with POST /password_resets {"email"} and done with
// the mailed link, through the JSON route or the plain pages of
// mail_pages.go. Without an SMTP server every route answers 503
// mail_unavailable.

// mailLang is the language of the mail a request asks for: the body's
// "lang", else the request's Accept-Language.
func mailLang(c echo.Context, lang string) string {
	if lang == "" {
		lang = c.Request().Header.Get("Accept-Language")
	}
	return mail.Lang(lang)
}

// addressSubject is the rate limits' subject for an address: a digest, so
// that no limit's key names it.
func addressSubject(address string) string {
	sum := sha256.Sum256([]byte(store.EmailKey(address)))
	return hex.EncodeToString(sum[:12])
}

// handleRequestReset queues a password reset mail for {"email"}: 202
// whether or not an account confirmed the address, after the same work.
// The requests count against the client address's limit (429 past it) and
// the asked address's: past that one the answer is the same 202 and no
// mail goes, so nobody can fill a mailbox with resets.
func handleRequestReset(st store.Service, on bool, limit store.Limit) echo.HandlerFunc {
	return func(c echo.Context) error {
		if !on {
			return store.ErrMailUnavailable
		}
		var in struct {
			Email *string `json:"email"`
			Lang  string  `json:"lang"`
		}
		if err := bindJSON(c, &in); err != nil {
			return err
		}
		if in.Email == nil || strings.TrimSpace(*in.Email) == "" {
			return store.Invalid(store.CodeInvalidEmail, "email is missing")
		}
		addr, err := store.CheckEmail(*in.Email)
		if err != nil {
			return err
		}
		ctx := c.Request().Context()
		if err := st.Allow(ctx, "password_reset", c.RealIP(), limit); err != nil {
			return err
		}
		err = st.Allow(ctx, "password_reset_email", addressSubject(addr), limit)
		var rl *store.RateLimitError
		if errors.As(err, &rl) {
			return c.JSON(http.StatusAccepted, struct{}{})
		}
		if err != nil {
			return err
		}
		if err := st.RequestPasswordReset(ctx, addr, mailLang(c, in.Lang)); err != nil {
			return err
		}
		return c.JSON(http.StatusAccepted, struct{}{})
	}
}

// handleReset sets the password of the reset link's token, {"password"}:
// 204, and every session of the account has ended; 400 invalid_token for a
// link unknown, used or expired, 400 invalid_password (the link stays
// good) for a password the rules refuse.
func handleReset(st store.Service, on bool) echo.HandlerFunc {
	return func(c echo.Context) error {
		if !on {
			return store.ErrMailUnavailable
		}
		var in struct {
			Password *string `json:"password"`
		}
		if err := bindJSON(c, &in); err != nil {
			return err
		}
		if in.Password == nil {
			return store.Invalid(store.CodeInvalidPassword, "password is missing")
		}
		if err := st.ResetPassword(c.Request().Context(), c.Param("token"), *in.Password); err != nil {
			return err
		}
		return noContent(c)
	}
}

// handleConfirmEmail confirms the address of a confirmation link's token:
// 200 the User; 400 invalid_token, 409 email_taken.
func handleConfirmEmail(st store.Service, on bool) echo.HandlerFunc {
	return func(c echo.Context) error {
		if !on {
			return store.ErrMailUnavailable
		}
		u, err := st.ConfirmEmail(c.Request().Context(), c.Param("token"))
		if err != nil {
			return err
		}
		return c.JSON(http.StatusOK, u)
	}
}

// emailChange is PATCH /me's "email": checked before anything of the
// request changes (check), set after (apply).
type emailChange struct {
	address *string
	lang    string
}

// check refuses an address the rules refuse, or any while the server
// sends no mail, and counts the change against the user's limit.
func (e *emailChange) check(c echo.Context, st store.Limiter, on bool, limit store.Limit) error {
	if e.address == nil {
		return nil
	}
	if !on {
		return store.ErrMailUnavailable
	}
	addr, err := store.CheckEmail(*e.address)
	if err != nil {
		return err
	}
	*e.address = addr
	if addr == "" {
		return nil
	}
	return st.Allow(c.Request().Context(), "email", strconv.FormatInt(viewer(c), 10), limit)
}

// apply sets the address and queues its confirmation mail.
func (e *emailChange) apply(c echo.Context, st store.Mail) error {
	if e.address == nil {
		return nil
	}
	_, err := st.SetEmail(c.Request().Context(), viewer(c), *e.address, mailLang(c, e.lang))
	return err
}

// me is the caller's own User with its addresses (/me alone shows them).
type me struct {
	store.User
	store.EmailState
}

package federation

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/url"
	"strings"

	"github.com/labstack/echo/v4"

	"microblog/store"
)

// The inboxes, a user's and the shared one, take the same activities: each
// is checked (its signature and digest, its actor the key's owner, its
// domain not blocked), taken once (fed:seen), and done (activities.go).

// maxInboxBytes bounds an activity's body.
const maxInboxBytes = 64 << 10 // as the API's body limit (server/api)

// inboxError is an inbox's refusal, answered as JSON.
func inboxError(c echo.Context, status int, msg string) error {
	return c.JSON(status, map[string]string{"error": msg})
}

// inbox answers POST to an inbox: 202 once the activity is taken (or was
// already), 401 for a signature that does not hold, 403 from a blocked
// domain, 400 for what is not an activity; nothing changes but on 202.
func (s *Service) inbox(c echo.Context) error {
	req := c.Request()
	ctx := req.Context()
	body, err := io.ReadAll(io.LimitReader(req.Body, maxInboxBytes+1))
	if err != nil {
		return inboxError(c, http.StatusBadRequest, "unreadable body")
	}
	if len(body) > maxInboxBytes {
		return inboxError(c, http.StatusRequestEntityTooLarge, "activity too large")
	}
	var act inDoc
	if err := json.Unmarshal(body, &act); err != nil {
		return inboxError(c, http.StatusBadRequest, "not a JSON activity")
	}
	actorID := idOf(act.Actor)
	au, err := url.Parse(actorID)
	if actorID == "" || err != nil || au.Host == "" || act.typeOf() == "" {
		return inboxError(c, http.StatusBadRequest, "an activity needs a type and an actor")
	}
	if blocked, err := s.st.DomainBlocked(ctx, au.Host); err != nil {
		return err
	} else if blocked {
		return inboxError(c, http.StatusForbidden, "domain blocked")
	}
	v, err := s.verifyRequest(ctx, req, body, actorID)
	if err != nil {
		switch {
		case errors.Is(err, store.ErrDomainBlocked):
			return inboxError(c, http.StatusForbidden, "domain blocked")
		case errors.Is(err, store.ErrUnavailable):
			return err
		}
		s.opt.Logger.Info("federation: inbox refused", "actor", actorID, "err", err)
		return inboxError(c, http.StatusUnauthorized, "signature refused: "+err.Error())
	}
	// An activity's id must be on its actor's server, so that no one can
	// spend another's ids.
	if act.ID == "" || !sameHost(act.ID, actorID) {
		return inboxError(c, http.StatusBadRequest, "the activity's id must be on its actor's server")
	}
	first, err := s.st.FirstSeen(ctx, act.ID)
	if err != nil {
		return err
	}
	if !first {
		return c.NoContent(http.StatusAccepted)
	}
	if err := s.handle(ctx, v.actor, &act); err != nil {
		var bad *badActivity
		if errors.As(err, &bad) {
			return inboxError(c, http.StatusBadRequest, bad.msg)
		}
		// Nothing went through: a redelivery may try again.
		_ = s.st.ForgetSeen(ctx, act.ID)
		if errors.Is(err, store.ErrUnavailable) {
			return err
		}
		s.opt.Logger.Warn("federation: activity not done", "id", act.ID, "type", act.typeOf(), "err", err)
		return inboxError(c, http.StatusUnprocessableEntity, "activity not done")
	}
	return c.NoContent(http.StatusAccepted)
}

// badActivity is an activity that cannot be done as sent.
type badActivity struct{ msg string }

func (b *badActivity) Error() string { return b.msg }

func bad(msg string) error { return &badActivity{msg} }

// sameHost tells whether two URLs are on one host.
func sameHost(a, b string) bool {
	ua, err1 := url.Parse(a)
	ub, err2 := url.Parse(b)
	return err1 == nil && err2 == nil && ua.Host != "" && strings.EqualFold(ua.Host, ub.Host)
}

// signedFetcher is the remote account whose valid signature a GET bears,
// 0 when there is none or it does not hold.
func (s *Service) signedFetcher(c echo.Context) int64 {
	req := c.Request()
	if req.Header.Get("Signature") == "" && req.Header.Get("Signature-Input") == "" {
		return 0
	}
	v, err := s.verifyRequest(req.Context(), req, nil, "")
	if err != nil {
		return 0
	}
	if blocked, err := s.st.DomainBlocked(req.Context(), hostOf(v.actor.ID)); err != nil || blocked {
		return 0
	}
	return v.actor.UID
}

// hostOf is a URL's host.
func hostOf(u string) string {
	p, err := url.Parse(u)
	if err != nil {
		return ""
	}
	return p.Host
}

// ignore is the answer to an activity the service takes but does nothing
// with (an object it does not know, a type it does not do).
func ignore(context.Context) error { return nil }

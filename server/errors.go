package main

import (
	"context"
	"errors"
	"log/slog"
	"net/http"
	"strconv"

	"github.com/labstack/echo/v4"

	"microblog/server/mastodon"
	"microblog/store"
)

// statusOf is the one table from the kinds of error (store's sentinels) to
// HTTP status codes, with the code and message told when the error carries
// none of its own (a *store.Error carries both).
var statusOf = []struct {
	kind   error
	status int
	code   store.Code
	msg    string
}{
	{store.ErrInvalid, http.StatusBadRequest, store.CodeBadRequest, "bad request"},
	{store.ErrUnauthorized, http.StatusUnauthorized, store.CodeUnauthorized, "not logged in"},
	{store.ErrForbidden, http.StatusForbidden, store.CodeForbidden, "not allowed"},
	{store.ErrNotFound, http.StatusNotFound, store.CodeNotFound, "no such endpoint"},
	{store.ErrMethodNotAllowed, http.StatusMethodNotAllowed, store.CodeMethodNotAllowed, "method not allowed here"},
	{store.ErrConflict, http.StatusConflict, store.CodeConflict, "conflict"},
	{store.ErrTooLarge, http.StatusRequestEntityTooLarge, store.CodeBodyTooLarge, bodyTooLargeMsg},
	{store.ErrUnsupported, http.StatusUnsupportedMediaType, store.CodeUnsupportedMedia, "request body must be application/json"},
	{store.ErrRateLimited, http.StatusTooManyRequests, store.CodeRateLimited, ""},
	{store.ErrUnavailable, http.StatusServiceUnavailable, store.CodeUnavailable, "the database is unreachable; try again shortly"},
}

// echoKinds names the kind of the errors Echo answers on its own (no route,
// wrong method, the body limit).
var echoKinds = map[int]error{
	http.StatusBadRequest:            store.ErrInvalid,
	http.StatusUnauthorized:          store.ErrUnauthorized,
	http.StatusForbidden:             store.ErrForbidden,
	http.StatusNotFound:              store.ErrNotFound,
	http.StatusMethodNotAllowed:      store.ErrMethodNotAllowed,
	http.StatusRequestEntityTooLarge: store.ErrTooLarge,
	http.StatusUnsupportedMediaType:  store.ErrUnsupported,
}

// errorBody is the contract's error body: {"error": {"code", "message"}}.
type errorBody struct {
	Error errorDetail `json:"error"`
}

type errorDetail struct {
	Code    store.Code `json:"code"`
	Message string     `json:"message"`
}

// describe turns any error into its status and what the client is told. It
// walks err's whole chain: a *store.Error gives the code and message, its
// kind (or any kind wrapped anywhere) the status.
func describe(err error) (int, errorDetail) {
	var he *echo.HTTPError
	if errors.As(err, &he) {
		if kind, ok := echoKinds[he.Code]; ok {
			err = kind
		}
	}
	for _, row := range statusOf {
		if !errors.Is(err, row.kind) {
			continue
		}
		d := errorDetail{Code: row.code, Message: row.msg}
		var se *store.Error
		if errors.As(err, &se) {
			d = errorDetail{Code: se.Code, Message: se.Message}
		} else if d.Message == "" {
			d.Message = err.Error()
		}
		return row.status, d
	}
	return http.StatusInternalServerError, errorDetail{Code: store.CodeInternal, Message: "something went wrong on our side"}
}

// statusClientClosed counts a request whose client went away before its
// answer (nginx's 499): it is logged and counted, never sent.
const statusClientClosed = 499

// aborted tells whether err only says that the client went away: the
// request's context ended, which net/http does when the connection closes.
func aborted(c echo.Context, err error) bool {
	return errors.Is(err, context.Canceled) && c.Request().Context().Err() != nil
}

// errorHandler writes every failure as the contract's JSON error body.
func errorHandler(logger *slog.Logger) echo.HTTPErrorHandler {
	return func(err error, c echo.Context) {
		if c.Response().Committed {
			return
		}
		if aborted(c, err) {
			logger.Debug("request aborted: the client went away", "path", c.Request().URL.Path, "err", err)
			c.Response().WriteHeader(statusClientClosed)
			return
		}
		status, detail := describe(err)
		switch {
		case status == http.StatusServiceUnavailable:
			logger.Warn("service unavailable", "path", c.Request().URL.Path, "err", err)
		case status >= 500:
			logger.Error("request failed", "path", c.Request().URL.Path, "err", err)
		}
		var rl *store.RateLimitError
		if errors.As(err, &rl) {
			c.Response().Header().Set("Retry-After", strconv.Itoa(int(rl.RetryAfter.Seconds()+0.999)))
		}
		if c.Request().Method == http.MethodHead {
			c.NoContent(status)
			return
		}
		if speaking, _ := c.Get(mastodon.CtxSpeaking).(bool); speaking {
			c.JSON(mastodon.StatusOf(status), mastodon.ErrorBody{Error: detail.Message})
			return
		}
		c.JSON(status, errorBody{Error: detail})
	}
}

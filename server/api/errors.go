package api

import (
	"errors"
	"net/http"

	"github.com/labstack/echo/v4"

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
	{store.ErrUnprocessable, http.StatusUnprocessableEntity, store.CodeTagFollowLimit, "unprocessable"},
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

// ErrorBody is the contract's error body: {"error": {"code", "message"}}.
type ErrorBody struct {
	Error ErrorDetail `json:"error"`
}

// ErrorDetail is what an error body tells the client.
type ErrorDetail struct {
	Code    store.Code `json:"code"`
	Message string     `json:"message"`
}

// Describe turns any error into its status and what the client is told. It
// walks err's whole chain: a *store.Error gives the code and message, its
// kind (or any kind wrapped anywhere) the status. The server's error
// handler answers every failure with it, the Mastodon API's too.
func Describe(err error) (int, ErrorDetail) {
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
		d := ErrorDetail{Code: row.code, Message: row.msg}
		var se *store.Error
		if errors.As(err, &se) {
			d = ErrorDetail{Code: se.Code, Message: se.Message}
		} else if d.Message == "" {
			d.Message = err.Error()
		}
		return row.status, d
	}
	return http.StatusInternalServerError, ErrorDetail{Code: store.CodeInternal, Message: "something went wrong on our side"}
}

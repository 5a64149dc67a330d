package main

import (
	"errors"
	"log/slog"
	"net/http"
	"strconv"

	"github.com/labstack/echo/v4"

	"microblog/store"
)

// apiError is the contract's error body: {"error": {"code", "message"}}.
type apiError struct {
	Status  int    `json:"-"`
	Code    string `json:"code"`
	Message string `json:"message"`
}

func (e *apiError) Error() string { return e.Message }

func newAPIError(status int, code, msg string) *apiError {
	return &apiError{Status: status, Code: code, Message: msg}
}

// statusOf is the one table from the store's sentinel errors to HTTP status codes.
var statusOf = []struct {
	kind   error
	status int
}{
	{store.ErrInvalid, http.StatusBadRequest},
	{store.ErrFollowSelf, http.StatusBadRequest},
	{store.ErrUnauthorized, http.StatusUnauthorized},
	{store.ErrCredentials, http.StatusUnauthorized},
	{store.ErrForbidden, http.StatusForbidden},
	{store.ErrNotFound, http.StatusNotFound},
	{store.ErrConflict, http.StatusConflict},
	{store.ErrUsernameTaken, http.StatusConflict},
	{store.ErrInProgress, http.StatusConflict},
	{store.ErrRateLimited, http.StatusTooManyRequests},
	{store.ErrUnavailable, http.StatusServiceUnavailable},
}

// toAPIError turns any error into what the client is told.
func toAPIError(err error) *apiError {
	var ae *apiError
	if errors.As(err, &ae) {
		return ae
	}
	var se *store.Error
	if errors.As(err, &se) {
		for _, row := range statusOf {
			if errors.Is(se.Kind, row.kind) {
				return newAPIError(row.status, se.Code, se.Message)
			}
		}
	}
	var rl *store.RateLimitError
	if errors.As(err, &rl) {
		return newAPIError(http.StatusTooManyRequests, "rate_limited", rl.Error())
	}
	if store.IsUnavailable(err) {
		return newAPIError(http.StatusServiceUnavailable, "unavailable", "the database is unreachable; try again shortly")
	}
	var he *echo.HTTPError
	if errors.As(err, &he) {
		switch he.Code {
		case http.StatusNotFound:
			return newAPIError(he.Code, "not_found", "no such endpoint")
		case http.StatusMethodNotAllowed:
			return newAPIError(he.Code, "method_not_allowed", "method not allowed here")
		case http.StatusRequestEntityTooLarge:
			return newAPIError(he.Code, "body_too_large", "request body must be at most 64 KiB")
		case http.StatusUnsupportedMediaType:
			return newAPIError(he.Code, "unsupported_media_type", "request body must be application/json")
		case http.StatusUnauthorized:
			return newAPIError(he.Code, "unauthorized", "not logged in")
		case http.StatusForbidden:
			return newAPIError(he.Code, "forbidden", "not allowed")
		}
		if he.Code < 500 {
			return newAPIError(he.Code, "bad_request", http.StatusText(he.Code))
		}
	}
	return newAPIError(http.StatusInternalServerError, "internal", "something went wrong on our side")
}

// errorHandler writes every failure as the contract's JSON error body.
func errorHandler(logger *slog.Logger) echo.HTTPErrorHandler {
	return func(err error, c echo.Context) {
		if c.Response().Committed {
			return
		}
		ae := toAPIError(err)
		switch {
		case ae.Status >= 500 && ae.Status != http.StatusServiceUnavailable:
			logger.Error("request failed", "path", c.Request().URL.Path, "err", err)
		case ae.Status == http.StatusServiceUnavailable:
			logger.Warn("redis unavailable", "path", c.Request().URL.Path, "err", err)
		}
		var rl *store.RateLimitError
		if errors.As(err, &rl) {
			c.Response().Header().Set("Retry-After", strconv.Itoa(int(rl.RetryAfter.Seconds()+0.999)))
		}
		if c.Request().Method == http.MethodHead {
			c.NoContent(ae.Status)
			return
		}
		c.JSON(ae.Status, map[string]*apiError{"error": ae})
	}
}

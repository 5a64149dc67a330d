package main

import (
	"context"
	"errors"
	"log/slog"
	"net"
	"net/http"
	"strconv"

	"github.com/labstack/echo/v4"

	"microblog/server/api"
	"microblog/server/mastodon"
	"microblog/store"
)

// statusClientClosed counts a request whose client went away before its
// answer (nginx's 499): it is logged and counted, never sent.
const statusClientClosed = 499

// aborted tells whether the client went away before its answer: net/http
// cancels the request's context when the connection closes, and err is then
// what the handler met on its way out (a cancelled call, or a body cut
// short). A client too slow to send its request (the read timeout) also
// ends the context, but it is still there to be told.
func aborted(c echo.Context, err error) bool {
	var ne net.Error
	if errors.As(err, &ne) && ne.Timeout() {
		return false
	}
	return errors.Is(c.Request().Context().Err(), context.Canceled)
}

// errorHandler writes every failure as the error body of the API the
// request speaks: the native API's table (api.Describe) gives its status
// and code, the Mastodon API words it its own way.
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
		status, detail := api.Describe(err)
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
		c.JSON(status, api.ErrorBody{Error: detail})
	}
}

package main

import (
	"context"
	"errors"
	"log/slog"
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

// aborted tells whether err only says that the client went away: the
// request's context ended, which net/http does when the connection closes.
func aborted(c echo.Context, err error) bool {
	return errors.Is(err, context.Canceled) && c.Request().Context().Err() != nil
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

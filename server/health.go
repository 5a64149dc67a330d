package main

import (
	"context"
	"errors"
	"net/http"
	"time"

	"github.com/labstack/echo/v4"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/promhttp"

	"microblog/server/api"
	"microblog/store"
)

// handleHealthz answers 200 while the process runs.
func handleHealthz(c echo.Context) error {
	return c.JSON(http.StatusOK, map[string]string{"status": "ok"})
}

// writable is a store that can tell whether its database takes writes.
type writable interface {
	Writable(ctx context.Context) error
}

// handleReadyz answers 200 when Redis answers and takes writes, else 503
// (storage_full when it is out of memory), within a second. The archive is
// reported too, but its being down does not make the server unready: posts
// go on, and the archive queue waits for it.
func handleReadyz(st store.Service) echo.HandlerFunc {
	return func(c echo.Context) error {
		ctx, cancel := context.WithTimeout(c.Request().Context(), time.Second)
		defer cancel()
		if err := st.Ping(ctx); err != nil {
			return c.JSON(http.StatusServiceUnavailable, api.ErrorBody{
				Error: api.ErrorDetail{Code: store.CodeUnavailable, Message: "redis is not answering"}})
		}
		if w, ok := st.(writable); ok {
			if err := w.Writable(ctx); errors.Is(err, store.ErrStorageFull) {
				return c.JSON(http.StatusServiceUnavailable, api.ErrorBody{Error: api.ErrorDetail{Code: store.CodeStorageFull,
					Message: "redis is out of memory (maxmemory reached) and refuses writes"}})
			}
		}
		body := map[string]string{"status": "ok", "redis": "ok", "archive": "off"}
		if on, err := st.PingArchive(ctx); on && err != nil {
			body["status"], body["archive"] = "degraded", "not answering: archiving waits"
		} else if on {
			body["archive"] = "ok"
		}
		return c.JSON(http.StatusOK, body)
	}
}

// handleMetrics serves the registry in the Prometheus text format.
func handleMetrics(reg *prometheus.Registry) echo.HandlerFunc {
	return echo.WrapHandler(promhttp.HandlerFor(reg, promhttp.HandlerOpts{}))
}

package main

import (
	"bytes"
	"context"
	"net/http"

	"github.com/labstack/echo/v4"
)

// replicator is a store that can wait for its writes to reach the
// database's replicas (redisdb.Store.Replicated).
type replicator interface {
	Replicated(ctx context.Context) error
}

// replicatedWrites, with MICROBLOG_REDIS_REPLICA_ACKS set, holds the answer
// of a write request (any method but GET, HEAD and OPTIONS) that succeeded
// until what the masters took is on that many replicas of each: a master
// that dies right after answering then loses no acknowledged write. When
// the replicas do not confirm in time, the request answers 503 instead; the
// write may stand, and its retry with the same Idempotency-Key is answered
// (with the same result) once they do. Answers of 400 and above go out as
// they are.
func replicatedWrites(st replicator) echo.MiddlewareFunc {
	return func(next echo.HandlerFunc) echo.HandlerFunc {
		return func(c echo.Context) error {
			switch c.Request().Method {
			case http.MethodGet, http.MethodHead, http.MethodOptions:
				return next(c)
			}
			res := c.Response()
			out := res.Writer
			held := &heldAnswer{header: out.Header()}
			res.Writer = held
			err := next(c)
			res.Writer = out
			if err == nil && held.status > 0 && held.status < http.StatusBadRequest {
				if rerr := st.Replicated(c.Request().Context()); rerr != nil {
					// Nothing of the held answer has gone out: answer the
					// error in its place.
					res.Committed, res.Status, res.Size = false, 0, 0
					for _, h := range []string{echo.HeaderContentType, echo.HeaderContentLength, echo.HeaderContentEncoding, echo.HeaderLocation} {
						out.Header().Del(h)
					}
					return rerr
				}
			}
			if held.status > 0 {
				out.WriteHeader(held.status)
				if _, werr := out.Write(held.body.Bytes()); werr != nil && err == nil {
					err = werr
				}
			}
			return err
		}
	}
}

// heldAnswer is a response held back by replicatedWrites: its headers go
// to the real response's (they are sent only with its status), its status
// and body are kept.
type heldAnswer struct {
	header http.Header
	status int
	body   bytes.Buffer
}

func (h *heldAnswer) Header() http.Header { return h.header }

func (h *heldAnswer) WriteHeader(status int) {
	if h.status == 0 {
		h.status = status
	}
}

func (h *heldAnswer) Write(b []byte) (int, error) {
	if h.status == 0 {
		h.status = http.StatusOK
	}
	return h.body.Write(b)
}

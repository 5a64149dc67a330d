package media

import (
	"context"
	"io"
	"time"

	"microblog/store"
)

// MaxDecodes is how many uploads one process decodes at a time: with each
// bounded by MaxDecodeBytes, their pixels take at most 192 MB together, and
// two keep both cores of a small machine busy.
const MaxDecodes = 2

// BusyRetryAfter is the Retry-After of an upload refused with ErrBusy.
const BusyRetryAfter = 5 * time.Second

// CodeBusy refuses an upload that found no turn to be decoded in time. It
// lives here rather than in store/errors.go because only uploads answer it.
const CodeBusy store.Code = "busy"

// ErrBusy is a 503: every turn stayed taken for decodeWait.
var ErrBusy = store.NewError(store.ErrUnavailable, CodeBusy,
	"the server is busy preparing other images; try again in a few seconds")

// decodeWait is how long an upload waits for a turn before ErrBusy: long
// enough for a few uploads of the largest kind ahead of it.
var decodeWait = 10 * time.Second

// turns holds a token for each decode under way in this process.
var turns = make(chan struct{}, MaxDecodes)

// takeTurn waits for one of the process's MaxDecodes turns to decode, at
// most decodeWait and only while ctx lasts; release gives it back.
func takeTurn(ctx context.Context) (release func(), err error) {
	release = func() { <-turns }
	select {
	case turns <- struct{}{}:
		return release, nil
	default:
	}
	wait := time.NewTimer(decodeWait)
	defer wait.Stop()
	select {
	case turns <- struct{}{}:
		return release, nil
	case <-ctx.Done():
		return nil, ctx.Err()
	case <-wait.C:
		return nil, ErrBusy
	}
}

// ctxReader is r read until ctx ends: a decoder reading from it stops at
// its next read (every few kilobytes of the file) with ctx's error.
type ctxReader struct {
	ctx context.Context
	r   io.Reader
}

func (r ctxReader) Read(p []byte) (int, error) {
	if err := r.ctx.Err(); err != nil {
		return 0, err
	}
	return r.r.Read(p)
}

// ctxWriter is w written until ctx ends, for encoders.
type ctxWriter struct {
	ctx context.Context
	w   io.Writer
}

func (w ctxWriter) Write(p []byte) (int, error) {
	if err := w.ctx.Err(); err != nil {
		return 0, err
	}
	return w.w.Write(p)
}

package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"strconv"
	"time"
)

// user is an account of the run.
type user struct {
	name  string
	id    int64
	token string
}

// answer is what one attempt at a request got: a status, or no answer.
type answer struct {
	status int
	code   string // the error body's code, if any
	body   []byte
	err    error // no answer (connection refused or cut, timeout)
}

// outcome names an answer for the tallies: its status and code, or
// "no answer".
func (a answer) outcome() string {
	if a.err != nil {
		return "no answer"
	}
	if a.code != "" {
		return strconv.Itoa(a.status) + " " + a.code
	}
	return strconv.Itoa(a.status)
}

// call makes one attempt at a request of the API at base, with token's
// session and, if key is set, an Idempotency-Key.
func call(ctx context.Context, client *http.Client, base, method, path, token, key string, body any) answer {
	var rd io.Reader
	if body != nil {
		b, _ := json.Marshal(body)
		rd = bytes.NewReader(b)
	}
	req, err := http.NewRequestWithContext(ctx, method, base+path, rd)
	if err != nil {
		return answer{err: err}
	}
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	if key != "" {
		req.Header.Set("Idempotency-Key", key)
	}
	resp, err := client.Do(req)
	if err != nil {
		return answer{err: err}
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		return answer{err: err}
	}
	a := answer{status: resp.StatusCode, body: b}
	if resp.StatusCode >= 400 {
		var e struct {
			Error struct{ Code string } `json:"error"`
		}
		json.Unmarshal(b, &e)
		a.code = e.Error.Code
	}
	return a
}

// retryable says whether the contract asks a client to try again after
// this answer: no answer, 503 (Redis or the archive away), or 409
// request_in_progress (another attempt with the same Idempotency-Key is
// still being answered).
func retryable(a answer) bool {
	return a.err != nil || a.status == http.StatusServiceUnavailable ||
		(a.status == http.StatusConflict && a.code == "request_in_progress")
}

// errGaveUp is retry's error when its context ended before an answer the
// contract does not ask to retry.
var errGaveUp = errors.New("not acknowledged before the run ended")

// retry makes a request until it gets an answer the contract does not ask
// to retry, each attempt to a server picked at random, a little longer
// apart each time (up to a second), until ctx ends. Every failed attempt
// is counted in tally by its outcome.
func retry(ctx context.Context, client *http.Client, pick func() string, rng *rand.Rand, tally func(string),
	method, path, token, key string, body any) (answer, error) {
	wait := 50 * time.Millisecond
	for {
		a := call(ctx, client, pick(), method, path, token, key, body)
		if !retryable(a) {
			return a, nil
		}
		tally(a.outcome())
		select {
		case <-ctx.Done():
			return a, errGaveUp
		case <-time.After(wait/2 + time.Duration(rng.Int64N(int64(wait)))):
		}
		wait = min(2*wait, time.Second)
	}
}

// register signs a user up, trying again while the servers are starting.
func register(ctx context.Context, client *http.Client, pick func() string, rng *rand.Rand, name string) (*user, error) {
	a, err := retry(ctx, client, pick, rng, func(string) {}, "POST", "/api/v1/users", "", "",
		map[string]string{"username": name, "password": "chaosbench-password"})
	if err != nil {
		return nil, fmt.Errorf("sign up %s: %w", name, err)
	}
	if a.status != http.StatusCreated {
		return nil, fmt.Errorf("sign up %s: %d %s", name, a.status, a.body)
	}
	var r struct {
		User struct {
			ID int64 `json:"id"`
		} `json:"user"`
		Token string `json:"token"`
	}
	if err := json.Unmarshal(a.body, &r); err != nil {
		return nil, fmt.Errorf("sign up %s: %w", name, err)
	}
	return &user{name: name, id: r.User.ID, token: r.Token}, nil
}

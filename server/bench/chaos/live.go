package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math/rand/v2"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/gorilla/websocket"

	"microblog/store"
)

// delivery is a post a live feed received.
type delivery struct {
	id, author int64
	delay      time.Duration // from its created_at to its frame
	at         time.Time     // when its frame was read
	socket     int           // the fan's socket it came on: 0 the first, n its n-th resume
	replayed   bool          // in the replay of a resume, before its ready
}

// liveFan reads one fan's live feed into a log. Whenever the socket ends
// (its process killed or stopping, a 1012 after a Redis outage, anything)
// it resumes, on a server picked at random, as the contract asks of
// clients (store.ResumePoint): ?after= a post it has written
// store.ResumeWindow before its newest, and ?seen= those it has above that.
type liveFan struct {
	u *user

	mu        sync.Mutex
	conn      *websocket.Conn
	log       []delivery
	baseline  int64 // last_id of its first ready: posts up to it came before
	held      []store.Held
	resumes   int
	replaying bool           // the current socket resumed and has not sent its ready yet
	truncated int            // replays cut short: posts the feed could not give
	ends      map[string]int // why sockets ended, by close code or error
}

// connect opens the fan's first socket and waits for its ready.
func (f *liveFan) connect(ctx context.Context, b *backends, rng *rand.Rand) error {
	f.ends = map[string]int{}
	deadline := time.Now().Add(time.Minute)
	for {
		c, ready, err := dial(ctx, b.pick(rng), f.u.token, 0, nil)
		if err == nil {
			f.conn, f.baseline = c, ready.LastID
			return nil
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("%s: open the live feed: %w", f.u.name, err)
		}
		time.Sleep(200 * time.Millisecond)
	}
}

// readyData is the ready frame's data.
type readyData struct {
	LastID    int64 `json:"last_id"`
	Truncated bool  `json:"truncated"`
}

// frame is a server frame: its event, and the fields of a post the log keeps.
type frame struct {
	Event string          `json:"event"`
	Data  json.RawMessage `json:"data"`
}

type postData struct {
	ID     int64 `json:"id"`
	Author struct {
		ID int64 `json:"id"`
	} `json:"author"`
	CreatedAt time.Time `json:"created_at"`
}

// dial opens a live feed at base, replaying the posts after after but
// seen (none when both are empty), and reads up to its ready frame; the
// replayed posts are left to read.
func dial(ctx context.Context, base, token string, after int64, seen []int64) (*websocket.Conn, readyData, error) {
	u := "ws" + strings.TrimPrefix(base, "http") + "/ws"
	resume := after > 0 || len(seen) > 0
	if resume {
		u += "?after=" + strconv.FormatInt(after, 10)
	}
	if len(seen) > 0 {
		ids := make([]string, len(seen))
		for i, id := range seen {
			ids[i] = strconv.FormatInt(id, 10)
		}
		u += "&seen=" + strings.Join(ids, ",")
	}
	d := websocket.Dialer{HandshakeTimeout: 10 * time.Second}
	c, _, err := d.DialContext(ctx, u, http.Header{"Authorization": {"Bearer " + token}})
	if err != nil {
		return nil, readyData{}, err
	}
	if resume {
		return c, readyData{}, nil // the ready comes after the replay, read by run
	}
	c.SetReadDeadline(time.Now().Add(30 * time.Second))
	for {
		var fr frame
		if err := c.ReadJSON(&fr); err != nil {
			c.Close()
			return nil, readyData{}, err
		}
		if fr.Event == "ready" {
			var r readyData
			err := json.Unmarshal(fr.Data, &r)
			c.SetReadDeadline(time.Time{})
			return c, r, err
		}
	}
}

// run reads the feed until ctx ends, resuming it whenever it ends.
func (f *liveFan) run(ctx context.Context, b *backends, rng *rand.Rand) {
	stop := context.AfterFunc(ctx, func() {
		f.mu.Lock()
		defer f.mu.Unlock()
		f.conn.Close()
	})
	defer stop()
	for {
		err := f.read()
		if ctx.Err() != nil {
			return
		}
		f.mu.Lock()
		f.ends[endReason(err)]++
		f.mu.Unlock()
		f.mu.Lock()
		after, seen := store.ResumePoint(f.baseline, f.held)
		f.mu.Unlock()
		for {
			c, _, err := dial(ctx, b.pick(rng), f.u.token, after, seen)
			if ctx.Err() != nil {
				if c != nil {
					c.Close()
				}
				return
			}
			if err == nil {
				f.mu.Lock()
				f.conn = c
				f.resumes++
				f.replaying = true
				f.mu.Unlock()
				break
			}
			time.Sleep(100 * time.Millisecond) // refused while its server is dead or Redis fails over
		}
	}
}

// read logs the posts of the current socket until it ends.
func (f *liveFan) read() error {
	for {
		var fr frame
		if err := f.conn.ReadJSON(&fr); err != nil {
			return err
		}
		switch fr.Event {
		case "post":
			var p postData
			if err := json.Unmarshal(fr.Data, &p); err != nil {
				return err
			}
			f.mu.Lock()
			f.log = append(f.log, delivery{id: p.ID, author: p.Author.ID, delay: time.Since(p.CreatedAt), at: time.Now(),
				socket: f.resumes, replayed: f.replaying})
			f.held = append(f.held, store.Held{ID: p.ID, At: store.Time(p.CreatedAt.UnixMilli())})
			f.mu.Unlock()
		case "ready":
			var r readyData
			truncated := json.Unmarshal(fr.Data, &r) == nil && r.Truncated
			f.mu.Lock()
			f.replaying = false
			if truncated {
				f.truncated++
			}
			f.mu.Unlock()
		}
	}
}

// endReason names why a socket ended: its close code, or "dropped".
func endReason(err error) string {
	var ce *websocket.CloseError
	if errors.As(err, &ce) {
		return strconv.Itoa(ce.Code)
	}
	return "dropped"
}

// how tells how d came, for a failure's message: live or in a resume's
// replay, on which socket, how late, and when from the load's start.
func (d delivery) how(start time.Time) string {
	way := "live"
	if d.replayed {
		way = "replayed"
	}
	return fmt.Sprintf("%s on socket %d, %s after its created_at, at %s", way, d.socket,
		d.delay.Round(time.Millisecond), d.at.Sub(start).Round(time.Millisecond))
}

// received is a copy of the log.
func (f *liveFan) received() []delivery {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]delivery(nil), f.log...)
}

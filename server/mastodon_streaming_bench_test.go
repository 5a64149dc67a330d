package main

import (
	"encoding/json"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/gorilla/websocket"
)

// BenchmarkStreamingSubscribes is the cost of a flood of subscribes on one
// Mastodon streaming socket (issue 37, finding 3): each iteration opens a
// socket and sends n subscribe frames, three in four to a hashtag not yet
// asked for (past the cap of 100 each is refused with an error frame),
// one in four to one already held, a hundred at a time (floodSocket),
// and waits until the server has answered them all. The figure is the CPU time of this process (the
// server and its in-process client; Redis runs apart) per subscribe and
// per socket: linear cost shows as the same µs/subscribe whatever n.
//
//	go test -count=1 -run '^$' -bench StreamingSubscribes -benchtime 1x ./server
func BenchmarkStreamingSubscribes(b *testing.B) {
	ts := newTestServer(b)
	tok, _ := ts.mastodonUser(b, "flood", "")
	u := "ws" + strings.TrimPrefix(ts.URL, "http") + "/api/v1/streaming"
	for _, n := range []int{1_000, 5_000, 20_000, 60_000} {
		frames := subscribeFlood(n)
		b.Run(fmt.Sprintf("n=%d", n), func(b *testing.B) {
			var spent time.Duration
			errors := 0
			for range b.N {
				start := cpuTime(b)
				errors = floodSocket(b, u, tok, frames)
				spent += cpuTime(b) - start
			}
			per := spent / time.Duration(b.N)
			b.ReportMetric(float64(per.Microseconds())/float64(n), "cpu-µs/subscribe")
			b.ReportMetric(per.Seconds(), "cpu-s/socket")
			b.ReportMetric(float64(errors), "errors/socket")
			fmt.Printf("streaming subscribes: n=%-6d cpu=%8.3fs  %6.2f µs/subscribe  %d error frames\n",
				n, per.Seconds(), float64(per.Microseconds())/float64(n), errors)
		})
	}
}

// subscribeFlood is n subscribe frames: every fourth to a hashtag sent
// before (and held if among the first 100 streams), the others to new ones.
func subscribeFlood(n int) [][]byte {
	frames := make([][]byte, n)
	fresh := 0
	for i := range frames {
		tag := fmt.Sprintf("t%d", fresh)
		if i%4 == 3 {
			tag = fmt.Sprintf("t%d", (i/4)%75)
		} else {
			fresh++
		}
		frames[i], _ = json.Marshal(map[string]string{"type": "subscribe", "stream": "hashtag", "tag": tag})
	}
	return frames
}

// floodMark is sent after every floodWindow subscribes and at the end:
// its error frame, queued behind every answer to what came before, says
// the server has answered all that. The client waits for it before it
// sends more, so that no more than a window of answers waits for it on
// the server: a client that sends more than the server's send queue
// (hub.DefaultSendQueue) of refused subscribes without reading their
// answers is closed as too slow, which would end the flood early.
var floodMark = []byte(`{"type":"flood-mark"}`)

const floodWindow = 100

// floodSocket opens a streaming socket as tok, sends frames a window at a
// time, and returns how many error frames answered them.
func floodSocket(b *testing.B, u, tok string, frames [][]byte) int {
	d := websocket.Dialer{HandshakeTimeout: hangWait}
	ws, _, err := d.Dial(u, http.Header{"Authorization": {"Bearer " + tok}})
	if err != nil {
		b.Fatalf("dial: %v", err)
	}
	defer ws.Close()
	marks := make(chan int, 1) // error frames before each mark's answer
	failed := make(chan error, 1)
	go func() {
		n := 0
		for {
			_, msg, err := ws.ReadMessage()
			if err != nil {
				failed <- fmt.Errorf("after %d error frames: %w", n, err)
				return
			}
			var m streamMsg
			if json.Unmarshal(msg, &m) != nil || m.Error == "" {
				failed <- fmt.Errorf("unexpected frame %s", msg)
				return
			}
			if m.Error == "Unknown message type" {
				marks <- n
				continue
			}
			n++
		}
	}()
	errors := 0
	for len(frames) > 0 {
		window := slices.Clip(frames[:min(floodWindow, len(frames))])
		frames = frames[len(window):]
		for _, f := range append(window, floodMark) {
			if err := ws.WriteMessage(websocket.TextMessage, f); err != nil {
				b.Fatalf("send: %v", err)
			}
		}
		select {
		case errors = <-marks:
		case err := <-failed:
			b.Fatal(err)
		case <-time.After(time.Minute):
			b.Fatalf("no answer to %d subscribes", len(window))
		}
	}
	return errors
}

package main

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/gorilla/websocket"
)

// connect opens every fan's live feed of kind, has start start its reader,
// and returns once every feed is open: the native feed's ready frame read
// (before its reader starts), or, as Mastodon's streaming sends nothing
// when it opens, a ping answered, which the server does only once it has
// subscribed the connection.
func (lt *loadTest) connect(base, source, kind string, fans []account, start func(*websocket.Conn)) ([]*websocket.Conn, error) {
	conns := make([]*websocket.Conn, len(fans))
	d := dialer(source)
	ws := "ws" + strings.TrimPrefix(base, "http")
	err := parallel(len(fans), lt.par, func(i int) error {
		url := ws + "/ws?token=" + fans[i].Token
		if kind == kindMastodon {
			url = ws + "/api/v1/streaming?stream=user&access_token=" + fans[i].Mastodon
		}
		c, _, err := d.Dial(url, nil)
		if err != nil {
			return fmt.Errorf("connect fan %d: %w", i, err)
		}
		conns[i] = c
		if kind == kindMastodon {
			return pingPong(c, start)
		}
		c.SetReadDeadline(time.Now().Add(30 * time.Second))
		if _, b, err := c.ReadMessage(); err != nil || !bytes.HasPrefix(b, []byte(`{"event":"ready"`)) {
			return fmt.Errorf("fan %d: no ready frame (%v)", i, err)
		}
		c.SetReadDeadline(time.Time{})
		start(c)
		return nil
	})
	if err != nil {
		for _, c := range conns {
			if c != nil {
				c.Close()
			}
		}
		return nil, err
	}
	return conns, nil
}

// pingPong starts c's reader, which runs its pong handler, and waits for
// the server to answer a ping.
func pingPong(c *websocket.Conn, start func(*websocket.Conn)) error {
	pong := make(chan struct{}, 1)
	c.SetPongHandler(func(string) error {
		select {
		case pong <- struct{}{}:
		default:
		}
		return nil
	})
	start(c)
	if err := c.WriteControl(websocket.PingMessage, nil, time.Now().Add(30*time.Second)); err != nil {
		return fmt.Errorf("ping the streaming API: %w", err)
	}
	select {
	case <-pong:
		return nil
	case <-time.After(30 * time.Second):
		return errors.New("the streaming API answered no ping in 30 s")
	}
}

// dialer dials WebSockets from the loopback address source, so that the
// connections of several sources use separate sets of ephemeral ports.
func dialer(source string) *websocket.Dialer {
	nd := &net.Dialer{Timeout: 30 * time.Second}
	if source != "" {
		nd.LocalAddr = &net.TCPAddr{IP: net.ParseIP(source)}
	}
	return &websocket.Dialer{
		NetDialContext:   nd.DialContext,
		ReadBufferSize:   1024,
		WriteBufferSize:  256,
		HandshakeTimeout: 30 * time.Second,
	}
}

// connectSSE opens every fan's user stream as server-sent events, has
// start read each once it is live (its greeting, the comment ":)", read),
// and returns the open responses.
func (lt *loadTest) connectSSE(base, source string, fans []account, start func(*bufio.Reader)) ([]io.Closer, error) {
	bodies := make([]io.Closer, len(fans))
	client := &http.Client{Transport: &http.Transport{DialContext: dialer(source).NetDialContext,
		MaxIdleConnsPerHost: 1, DisableCompression: true}}
	err := parallel(len(fans), lt.par, func(i int) error {
		resp, err := client.Get(base + "/api/v1/streaming/user?access_token=" + url.QueryEscape(fans[i].Mastodon))
		if err != nil {
			return fmt.Errorf("connect fan %d: %w", i, err)
		}
		bodies[i] = resp.Body
		if resp.StatusCode != http.StatusOK {
			return fmt.Errorf("fan %d: GET /api/v1/streaming/user: %s", i, resp.Status)
		}
		rd := bufio.NewReaderSize(resp.Body, 1024)
		line, err := rd.ReadString('\n')
		if err != nil || line != ":)\n" {
			return fmt.Errorf("fan %d: the stream began with %q (%v), want the greeting", i, line, err)
		}
		start(rd)
		return nil
	})
	if err != nil {
		for _, b := range bodies {
			if b != nil {
				b.Close()
			}
		}
		return nil, err
	}
	return bodies, nil
}

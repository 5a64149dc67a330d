package redisdb

import (
	"errors"
	"testing"

	"microblog/store"
)

// TestIsUnavailable: the answers of a Redis that is away or changing
// hands, a MOVED or ASK left over from a failover among them, are 503s;
// others are not.
func TestIsUnavailable(t *testing.T) {
	parallel(t)
	for msg, want := range map[string]bool{
		"MOVED 5565 127.0.0.1:38151":                                        true,
		"ASK 5565 127.0.0.1:38151":                                          true,
		"CLUSTERDOWN The cluster is down":                                   true,
		"LOADING Redis is loading":                                          true,
		"WRONGTYPE Operation against a key holding the wrong kind of value": false,
		"ERR unknown command":                                               false,
	} {
		if got := isUnavailable(errors.New(msg)); got != want {
			t.Errorf("isUnavailable(%q) = %v, want %v", msg, got, want)
		}
	}
	s := &Store{}
	if err := s.Wrap("load posts", errors.New("MOVED 8241 127.0.0.1:38151")); !errors.Is(err, store.ErrUnavailable) {
		t.Errorf("wrap of a MOVED: %v, want store.ErrUnavailable", err)
	}
}

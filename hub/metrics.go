package hub

import (
	"errors"

	"github.com/prometheus/client_golang/prometheus"
)

// metrics are the hub's Prometheus series.
type metrics struct {
	conns      prometheus.Gauge
	topics     prometheus.Gauge
	received   prometheus.Counter
	delivered  prometheus.Counter
	replayed   prometheus.Counter
	duplicates prometheus.Counter
	dropped    prometheus.Counter
	withheld   prometheus.Counter
	slowClosed prometheus.Counter
	revoked    prometheus.Counter
	gaps       prometheus.Counter
}

func newMetrics(reg prometheus.Registerer) *metrics {
	gauge := func(name, help string) prometheus.Gauge {
		return register(reg, prometheus.NewGauge(prometheus.GaugeOpts{Name: name, Help: help}))
	}
	counter := func(name, help string) prometheus.Counter {
		return register(reg, prometheus.NewCounter(prometheus.CounterOpts{Name: name, Help: help}))
	}
	return &metrics{
		conns:      gauge("microblog_live_connections", "Open live-feed WebSocket connections."),
		topics:     gauge("microblog_live_topics", "Live topics (author and notify channels) subscribed in Redis by this process."),
		received:   counter("microblog_live_events_received_total", "Events received from Redis pub/sub."),
		delivered:  counter("microblog_live_frames_sent_total", "Frames written to WebSocket clients (events, replays and ready)."),
		replayed:   counter("microblog_live_posts_replayed_total", "Posts sent from the timeline rather than live: ?after replays and catch-up after a gap."),
		duplicates: counter("microblog_live_duplicates_dropped_total", "Posts not sent again to a connection that already had them."),
		dropped:    counter("microblog_live_events_dropped_total", "Events not delivered because a connection's send queue was full."),
		withheld:   counter("microblog_live_events_withheld_total", "Events not delivered to a user because its blocks, mutes or word filters, or a protected author, hide them."),
		slowClosed: counter("microblog_live_slow_closed_total", "Connections closed with 4008 for reading too slowly."),
		revoked:    counter("microblog_live_logout_closed_total", "Connections closed with 4001 because their session logged out."),
		gaps:       counter("microblog_live_subscriber_gaps_total", "Times the Redis subscriber connection broke and came back."),
	}
}

// register adds c to reg, or returns the collector already registered under
// the same name (two hubs in one process, as in tests, share their series).
func register[C prometheus.Collector](reg prometheus.Registerer, c C) C {
	if reg == nil {
		return c
	}
	if err := reg.Register(c); err != nil {
		var are prometheus.AlreadyRegisteredError
		if errors.As(err, &are) {
			if existing, ok := are.ExistingCollector.(C); ok {
				return existing
			}
		}
		panic(err)
	}
	return c
}

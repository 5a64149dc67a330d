package runner

import (
	"time"

	"github.com/prometheus/client_golang/prometheus"
)

// DeliveryMetrics count what the deliverer does: its requests by outcome
// (sent, failed and put off, refused, given up, blocked) and how long they
// took.
type DeliveryMetrics struct {
	Outcomes *prometheus.CounterVec
	Seconds  prometheus.Histogram
}

// NewDeliveryMetrics makes the counters and registers them with reg (nil:
// none).
func NewDeliveryMetrics(reg prometheus.Registerer) *DeliveryMetrics {
	m := &DeliveryMetrics{
		Outcomes: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "microblog_federation_deliveries_total", Help: "Activity deliveries to other servers' inboxes, by outcome.",
		}, []string{"outcome"}),
		Seconds: prometheus.NewHistogram(prometheus.HistogramOpts{
			Name: "microblog_federation_delivery_seconds", Help: "How long one delivery request took.",
			Buckets: []float64{0.01, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30},
		}),
	}
	if reg != nil {
		reg.MustRegister(m.Outcomes, m.Seconds)
	}
	return m
}

func (m *DeliveryMetrics) count(outcome string) {
	if m != nil {
		m.Outcomes.WithLabelValues(outcome).Inc()
	}
}

func (m *DeliveryMetrics) observe(d time.Duration) {
	if m != nil {
		m.Seconds.Observe(d.Seconds())
	}
}

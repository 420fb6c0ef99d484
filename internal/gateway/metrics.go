package gateway

import (
	"time"

	"github.com/prometheus/client_golang/prometheus"
)

// metrics are the gateway's Prometheus metrics, on a registry of its own.
type metrics struct {
	reg      *prometheus.Registry
	calls    *prometheus.CounterVec
	duration *prometheus.HistogramVec
	requests *prometheus.CounterVec
	refusals *prometheus.CounterVec
	opens    *prometheus.CounterVec // stored servers opened on first use, by outcome
}

func newMetrics(g *Gateway) *metrics {
	m := &metrics{reg: prometheus.NewRegistry()}
	m.calls = prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "mcpbridge_tool_calls_total",
		Help: "Tool calls by server, tool and outcome (ok, tool_error, invalid_arguments, refused, busy, store_unavailable, gateway_error, ...).",
	}, []string{"server", "tool", "outcome"})
	m.duration = prometheus.NewHistogramVec(prometheus.HistogramOpts{
		Name:    "mcpbridge_tool_call_duration_seconds",
		Help:    "Duration of tool calls.",
		Buckets: []float64{.0005, .001, .0025, .005, .01, .025, .05, .1, .25, .5, 1, 2.5, 5, 10, 30},
	}, []string{"server", "tool"})
	m.requests = prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "mcpbridge_http_requests_total",
		Help: "HTTP requests to MCP endpoints by server and status code.",
	}, []string{"server", "code"})
	m.refusals = prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "mcpbridge_limit_refusals_total",
		Help: "Requests and connections refused by a limit (sessions, sessions_per_client, sessions_share, concurrent_calls, concurrent_calls_per_principal, rate.per_principal, rate.per_server, connections, connections_per_client).",
	}, []string{"limit"})
	sessions := prometheus.NewGaugeFunc(prometheus.GaugeOpts{
		Name: "mcpbridge_open_sessions",
		Help: "Open legacy-era MCP sessions across all servers.",
	}, func() float64 {
		n := 0
		g.reg.each(func(e *Entry) {
			if e.Server == nil { // a stored server not opened yet
				return
			}
			for range e.Server.Sessions() {
				n++
			}
		})
		return float64(n)
	})
	dropped := prometheus.NewCounterFunc(prometheus.CounterOpts{
		Name: "mcpbridge_audit_dropped_total",
		Help: "Audit entries dropped because the store could not keep up.",
	}, func() float64 {
		if g.audit == nil {
			return 0
		}
		return float64(g.audit.dropped.Load())
	})
	m.opens = prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "mcpbridge_server_opens_total",
		Help: "Stored servers opened on first use, by outcome (ok; unavailable: the backend could not be opened; invalid: the stored definition is invalid).",
	}, []string{"outcome"})
	served := func(state string, count func(served, unopened int) int) prometheus.GaugeFunc {
		return prometheus.NewGaugeFunc(prometheus.GaugeOpts{
			Name:        "mcpbridge_servers",
			Help:        "Servers served, by state: opened (the definition decoded and the backend opened, or found unavailable) or not_opened (a stored server, opened on first use).",
			ConstLabels: prometheus.Labels{"state": state},
		}, func() float64 { return float64(count(g.reg.count())) })
	}
	opened := served("opened", func(served, unopened int) int { return served - unopened })
	notOpened := served("not_opened", func(_, unopened int) int { return unopened })
	m.reg.MustRegister(m.calls, m.duration, m.requests, m.refusals, sessions, dropped, m.opens, opened, notOpened,
		prometheus.NewGoCollector(), prometheus.NewProcessCollector(prometheus.ProcessCollectorOpts{}))
	return m
}

func (m *metrics) observe(server, tool, outcome string, d time.Duration) {
	m.calls.WithLabelValues(server, tool, outcome).Inc()
	m.duration.WithLabelValues(server, tool).Observe(d.Seconds())
}

// refused counts a refusal by the limit that caused it.
func (m *metrics) refused(limit string) { m.refusals.WithLabelValues(limit).Inc() }

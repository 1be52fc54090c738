package server

import (
	"net/http"
	"strconv"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/promhttp"

	"github.com/kexlab/kexlab/server/dispatch"
)

// metrics are the service's Prometheus metrics, in a registry of the
// Server's own (so that several Servers in one process do not collide).
type metrics struct {
	reg      *prometheus.Registry
	logins   *prometheus.CounterVec   // scheme, outcome
	regs     *prometheus.CounterVec   // scheme, outcome
	duration *prometheus.HistogramVec // route, code
}

func newMetrics(d *dispatch.Dispatcher) *metrics {
	m := &metrics{
		reg: prometheus.NewRegistry(),
		logins: prometheus.NewCounterVec(prometheus.CounterOpts{Name: "kexlab_logins_total",
			Help: "Finished logins by scheme and outcome (success, auth_failed)."}, []string{"scheme", "outcome"}),
		regs: prometheus.NewCounterVec(prometheus.CounterOpts{Name: "kexlab_registrations_total",
			Help: "Finished registrations and password changes by scheme and outcome (created, changed, exists)."}, []string{"scheme", "outcome"}),
		duration: prometheus.NewHistogramVec(prometheus.HistogramOpts{Name: "kexlab_request_duration_seconds",
			Help: "API request latency by route and HTTP status.", Buckets: prometheus.ExponentialBuckets(0.0005, 2, 14)},
			[]string{"route", "code"}),
	}
	m.reg.MustRegister(m.logins, m.regs, m.duration, dispatchCollector{d},
		prometheus.NewGoCollector(), prometheus.NewProcessCollector(prometheus.ProcessCollectorOpts{}))
	return m
}

func (m *metrics) handler() http.Handler {
	return promhttp.HandlerFor(m.reg, promhttp.HandlerOpts{})
}

// observe records one request's latency under its route pattern.
func (m *metrics) observe(route string, code int, d time.Duration) {
	m.duration.WithLabelValues(route, strconv.Itoa(code)).Observe(d.Seconds())
}

// dispatchCollector exports the dispatcher's Stats: queue depth, tasks and
// the batch-size histogram.
type dispatchCollector struct{ d *dispatch.Dispatcher }

var (
	descQueue   = prometheus.NewDesc("kexlab_dispatch_queue_depth", "Tasks waiting for a dispatcher worker.", nil, nil)
	descTasks   = prometheus.NewDesc("kexlab_dispatch_tasks_total", "Dispatcher tasks by fate: ran, panicked, canceled, failed (their sum is the tasks queued), rejected (never queued).", []string{"fate"}, nil)
	descBatches = prometheus.NewDesc("kexlab_dispatch_batch_size", "Tasks per batch handed to a backend.", nil, nil)
)

func (c dispatchCollector) Describe(ch chan<- *prometheus.Desc) {
	ch <- descQueue
	ch <- descTasks
	ch <- descBatches
}

func (c dispatchCollector) Collect(ch chan<- prometheus.Metric) {
	s := c.d.Stats()
	ch <- prometheus.MustNewConstMetric(descQueue, prometheus.GaugeValue, float64(s.QueueDepth))
	var failed uint64
	for _, b := range s.Backends {
		failed += b.Failed
	}
	// One fate per task: ran, panicked, canceled or failed (these add up to
	// the tasks submitted), or rejected (never queued).
	for fate, n := range map[string]uint64{"ran": s.Ran - s.Panics, "panicked": s.Panics, "canceled": s.Canceled,
		"failed": failed, "rejected": s.Rejected} {
		ch <- prometheus.MustNewConstMetric(descTasks, prometheus.CounterValue, float64(n), fate)
	}
	buckets := map[float64]uint64{}
	for _, b := range s.BatchBuckets {
		buckets[float64(b.UpperBound)] = b.Count
	}
	ch <- prometheus.MustNewConstHistogram(descBatches, s.Batches, float64(s.BatchTasks), buckets)
}

// statusWriter remembers the status a handler wrote.
// beforeHeader, when set, runs once just before the status is written.
type statusWriter struct {
	http.ResponseWriter
	code         int
	beforeHeader func(http.Header)
}

func (w *statusWriter) WriteHeader(code int) {
	if w.code == 0 {
		w.code = code
		if w.beforeHeader != nil {
			w.beforeHeader(w.Header())
		}
	}
	w.ResponseWriter.WriteHeader(code)
}

func (w *statusWriter) Write(b []byte) (int, error) {
	if w.code == 0 {
		w.WriteHeader(http.StatusOK)
	}
	return w.ResponseWriter.Write(b)
}

package bench

import "time"

// LoadFormat is the Format of a LoadResult (`kexlab load -o`).
const LoadFormat = "kexlab-load/1"

// LoadResult is one run of the service's load generator (package
// server/load): logins against a running `kexlab serve`, which package
// report renders beside the harness's runs.
type LoadResult struct {
	Format      string  `json:"format"`
	Scheme      string  `json:"scheme"`
	Loop        string  `json:"loop"` // "closed" or "open"
	Concurrency int     `json:"concurrency"`
	Rate        float64 `json:"rate,omitempty"` // offered, per second (open loop)
	Seconds     float64 `json:"seconds"`        // measured wall time
	OK          int64   `json:"ok"`
	// Drained is the logins in flight when the window closed, which ran to
	// their end uncounted.
	Drained    int64          `json:"drained,omitempty"`
	Throughput float64        `json:"throughput"` // successful logins per second
	Latency    LoadLatency    `json:"latency_ms"` // of successful logins
	Errors     map[string]int `json:"errors,omitempty"`
	Started    time.Time      `json:"started"`
}

// LoadLatency summarises a LoadResult's latency histogram, in milliseconds.
type LoadLatency struct {
	N    int64   `json:"n"`
	Min  float64 `json:"min"`
	Mean float64 `json:"mean"`
	P50  float64 `json:"p50"`
	P90  float64 `json:"p90"`
	P99  float64 `json:"p99"`
	P999 float64 `json:"p99_9"`
	Max  float64 `json:"max"`
}

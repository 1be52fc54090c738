package bench

// ServiceStudyFormat is the Format of a ServiceStudy (`kexlab load-study`).
const ServiceStudyFormat = "kexlab-service-study/1"

// ServiceStudy is the Heterogeneous-PAKE study's service experiments run
// against `kexlab serve` on one machine (package server/loadstudy), which
// package report renders.
type ServiceStudy struct {
	Format  string  `json:"format"`
	Machine Machine `json:"machine"`
	// The shape of the run.
	PointSeconds  float64 `json:"point_seconds"`  // measured time of each load point
	WarmupSeconds float64 `json:"warmup_seconds"` // before each point, not recorded
	Accounts      int     `json:"accounts"`       // per scheme, logged in to round robin
	ServerCPUs    string  `json:"server_cpus"`    // what the service process could run on

	Dispatch   []DispatchFit     `json:"dispatch"`   // experiment 1: delay vs batch size
	Throughput []ThroughputPoint `json:"throughput"` // experiment 2 (and 4): closed loop vs connections
	Latency    []LatencyPoint    `json:"latency"`    // open loop at fractions of the peak
	Schemes    []SchemeSummary   `json:"schemes"`    // peak, per-core rate, the targets
}

// DispatchFit is one scheme's batch delay through one dispatcher (one
// worker, the CPU backend): the median wall time of a batch of each size
// and the line time = T + k·size fitted to them.
type DispatchFit struct {
	Scheme    string       `json:"scheme"`
	Backend   string       `json:"backend"`
	Points    []BatchDelay `json:"points"`
	Reps      int          `json:"reps"` // batches timed per size
	TMs       float64      `json:"t_ms"` // fitted batch latency
	KMs       float64      `json:"k_ms"` // fitted cost per task
	R2        float64      `json:"r2"`
	Clamped   bool         `json:"clamped,omitempty"` // a negative T or k reported as 0
	Threshold string       `json:"threshold"`         // t = ⌈T/k⌉ against an accelerator, or why none
}

// BatchDelay is a batch size and the median delay of such a batch.
type BatchDelay struct {
	Size int     `json:"size"`
	Ms   float64 `json:"ms"`
}

// ThroughputPoint is one closed-loop run: Conns clients back to back
// against a service whose dispatcher workers take up to MaxBatch tasks.
type ThroughputPoint struct {
	Scheme     string     `json:"scheme"`
	MaxBatch   int        `json:"max_batch"`
	Conns      int        `json:"conns"`
	Result     LoadResult `json:"result"`
	ServerCPUS float64    `json:"server_cpu_s,omitempty"` // the service process's CPU time during the point
	PerCore    float64    `json:"per_core,omitempty"`     // logins per second of server CPU time
}

// LatencyPoint is one open-loop run at Fraction of the scheme's peak.
type LatencyPoint struct {
	Scheme   string     `json:"scheme"`
	Fraction float64    `json:"fraction"`
	Result   LoadResult `json:"result"`
}

// SchemeSummary is one scheme's findings and the targets.
type SchemeSummary struct {
	Scheme string `json:"scheme"`
	Kind   string `json:"kind"` // "pake" or "hash"
	// Peak is the highest closed-loop throughput (logins/s), at PeakConns
	// connections and PeakBatch. PerCoreRuns are the logins per second of
	// server CPU time of that run and of the repeats of PeakConns (at the
	// last batch size, interleaved across schemes), PeakPerCore their
	// median.
	Peak        float64   `json:"peak"`
	PeakConns   int       `json:"peak_conns"`
	PeakBatch   int       `json:"peak_batch"`
	PeakPerCore float64   `json:"peak_per_core,omitempty"`
	PerCoreRuns []float64 `json:"per_core_runs,omitempty"`
	// LimitMs is the server-side primitive cost of one login (the group
	// operations, KEM calls or the hash alone), the median of LimitN runs
	// back to back, and LimitPerCore = 1000/LimitMs.
	LimitMs      float64 `json:"limit_ms"`
	LimitQ1      float64 `json:"limit_q1_ms"`
	LimitQ3      float64 `json:"limit_q3_ms"`
	LimitN       int     `json:"limit_n"`
	LimitPerCore float64 `json:"limit_per_core"`
	PctLimit     float64 `json:"pct_limit,omitempty"` // 100·PeakPerCore/LimitPerCore (target ≥ 80)
	// UnloadedP50 is the median latency of one client alone (ms); P99At70
	// the p99 of an open loop at 70 % of Peak; Ratio = P99At70/UnloadedP50
	// (target ≤ 3).
	UnloadedP50 float64 `json:"unloaded_p50_ms"`
	P99At70     float64 `json:"p99_at_70_ms,omitempty"`
	Ratio       float64 `json:"p99_ratio,omitempty"`
}

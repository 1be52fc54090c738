package bench

import (
	"crypto/rand"
	"errors"
	"fmt"
	"io"
	mrand "math/rand/v2"
	"runtime"
	"slices"
	"sort"
	"time"

	"github.com/kexlab/kexlab/bench/meter"
	"github.com/kexlab/kexlab/pake"
)

// Config are the settings of [Compare].
type Config struct {
	Schemes []pake.Scheme
	// N is the most samples per scheme; MinN the fewest (the floor wins
	// over the budget).
	N, MinN int
	// Warmup is the number of unrecorded exchanges per scheme before
	// sampling; they also calibrate the cost of a sample.
	Warmup int
	// Budget bounds the whole run, warm-up included, as far as the floor
	// allows.
	Budget time.Duration
	// Seed fixes the interleaved order of the samples.
	Seed uint64
	// Rand feeds the protocols; nil means crypto/rand.
	Rand io.Reader
	// Energy, when not nil, is read around every sample; otherwise
	// EnergyReason says why energy is not measured.
	Energy       *meter.RAPL
	EnergyReason string
	// Label names the run (default: the host name).
	Label string
	// Profile records which pake profile Schemes came from ("" when they
	// were chosen by name).
	Profile string
	// Peers are schemes of independent implementations (package
	// bench/peer), sampled in the same seeded, interleaved order as
	// Schemes; their samples are op "full".
	Peers []Peer
	// Progress, when not nil, is called after every sample.
	Progress func(done, total int, elapsed time.Duration)
}

// Peer is one scheme of an independent implementation, measured in a
// running driver process.
type Peer interface {
	// Info describes the scheme (its Peer field says which kexlab scheme
	// and op it stands beside).
	Info() SchemeInfo
	// Sample runs and times one complete exchange.
	Sample() (Sample, error)
}

// credentials used for every exchange; the values are arbitrary.
var credentials = pake.Credentials{
	Password: []byte("correct horse battery staple"),
	ClientID: []byte("client@kexlab"),
	ServerID: []byte("server.kexlab"),
	Context:  []byte("kexlab compare"),
}

// Compare measures every scheme of cfg and returns all samples. A scheme
// whose exchange fails (or panics) is recorded with its error in
// SchemeInfo.Error and measured no further; Compare fails only when every
// scheme does.
func Compare(cfg Config) (*Results, error) {
	if len(cfg.Schemes) == 0 {
		return nil, errors.New("bench: no schemes")
	}
	if cfg.MinN < 2 {
		cfg.MinN = 2
	}
	if cfg.N < cfg.MinN {
		cfg.N = cfg.MinN
	}
	if cfg.Warmup < 1 {
		cfg.Warmup = 1
	}
	if cfg.Rand == nil {
		cfg.Rand = rand.Reader
	}
	res := &Results{
		Format:  Format,
		Source:  "kexlab compare",
		Machine: DescribeMachine(),
		Settings: Settings{N: cfg.N, MinN: cfg.MinN, Warmup: cfg.Warmup,
			BudgetNs: int64(cfg.Budget), Seed: cfg.Seed, Profile: cfg.Profile},
		Started: time.Now().UTC(),
	}
	res.Label = cfg.Label
	if res.Label == "" {
		res.Label = res.Machine.Host
	}
	if cfg.Energy != nil {
		res.Energy = EnergyStatus{Measured: true, Meter: "RAPL " + meter.DefaultPowercap, Domains: cfg.Energy.Names()}
	} else {
		res.Energy = EnergyStatus{Reason: cfg.EnergyReason}
		if res.Energy.Reason == "" {
			res.Energy.Reason = "no energy meter configured"
		}
	}

	// The whole run stays on one OS thread so that the thread CPU clock
	// brackets exactly the measured work.
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	m := &measurer{rand: cfg.Rand, energy: cfg.Energy}
	if _, err := meter.ThreadCPU(); err == nil {
		m.cpu = true
		res.CPUClock = meter.ThreadCPUClock
	}

	start := time.Now()
	// Warm-up and calibration: the cost of a sample is the median of the
	// warm-up exchanges (registration included), the first (cold) one
	// dropped when there are more.
	units := len(cfg.Schemes) + len(cfg.Peers)
	costs := make([]time.Duration, units)
	failed := make([]bool, units)
	takes := make([]func(bool) ([]*Sample, pake.Transcript, error), units)
	for i := range units {
		si, take := m.unit(cfg, i)
		takes[i] = take
		var seen []time.Duration
		for w := 0; w < cfg.Warmup; w++ {
			smps, tr, err := take(w%2 == 1)
			if err != nil {
				si.Error = err.Error()
				failed[i] = true
				break
			}
			c := sampleCost(smps)
			switch {
			case w > 0:
			case i < len(cfg.Schemes):
				si.WireCheck = checkWire(&si, tr)
			case len(smps) > 0: // a peer: its bytes as its driver counted them
				si.Size, si.StudySize = smps[0].WireBytes, smps[0].WireBytes
			}
			seen = append(seen, c)
			// A scheme that alone would eat a tenth of the budget
			// warms up once.
			if cfg.Budget > 0 && c*time.Duration(units) > cfg.Budget/10 {
				break
			}
		}
		if len(seen) > 1 {
			seen = seen[1:]
		}
		if len(seen) > 0 {
			sort.Slice(seen, func(a, b int) bool { return seen[a] < seen[b] })
			costs[i] = seen[len(seen)/2]
		}
		si.CalibrationNs = int64(costs[i])
		if f := m.floors[si.Name]; f != nil && i < len(cfg.Schemes) {
			si.FloorOps = f.Ops
		}
		res.Schemes = append(res.Schemes, si)
	}
	if !slices.Contains(failed, false) {
		return nil, fmt.Errorf("bench: every scheme failed; first: %s: %s", res.Schemes[0].Name, res.Schemes[0].Error)
	}
	// Sampling goes in rounds. Each round plans the samples of every
	// scheme for 90% of the budget left after the warm-up (Plan), from the
	// calibration first and then from the median cost of the samples taken,
	// and takes what is still missing, interleaved in a seeded random order.
	// Later rounds correct a calibration that the machine's load skewed.
	// Once the budget is spent, only samples that a scheme needs to reach
	// the floor are still taken; the order is random, so cutting a round
	// short biases no scheme.
	sampling := cfg.Budget - time.Since(start)
	if cfg.Budget > 0 && sampling <= 0 {
		sampling = time.Nanosecond
	}
	rng := mrand.New(mrand.NewPCG(cfg.Seed, 0x6b65786c6162))
	iters := make([]int, units)
	perScheme := make([][]time.Duration, units)
	seq, total, reported := 0, 0, 0
	for round := 0; round < maxRounds; round++ {
		if round > 0 {
			if cfg.Budget <= 0 || time.Since(start) > cfg.Budget*9/10 {
				break
			}
			for i, c := range perScheme {
				if len(c) > 0 {
					costs[i] = medianDuration(c)
				}
			}
		}
		ns := Plan(costs, cfg.N, cfg.MinN, sampling/10*9)
		var order []int
		for i, n := range ns {
			if failed[i] {
				continue
			}
			res.Schemes[i].Planned = n
			for range n - iters[i] {
				order = append(order, i)
			}
		}
		if len(order) == 0 {
			break
		}
		total += len(order)
		rng.Shuffle(len(order), func(a, b int) { order[a], order[b] = order[b], order[a] })
		for _, i := range order {
			seq++
			if failed[i] || cfg.Budget > 0 && iters[i] >= cfg.MinN && time.Since(start) > cfg.Budget {
				continue
			}
			smps, _, err := takes[i](iters[i]%2 == 1)
			if err != nil {
				// A scheme that fails is reported, not measured further.
				res.Schemes[i].Error = err.Error()
				failed[i] = true
				continue
			}
			for _, smp := range smps {
				smp.Scheme, smp.Seq, smp.Iter = res.Schemes[i].Name, seq-1, iters[i]
				res.Samples = append(res.Samples, *smp)
			}
			cost := sampleCost(smps)
			perScheme[i] = append(perScheme[i], cost)
			iters[i]++
			if cfg.Progress != nil {
				cfg.Progress(seq, total, time.Since(start))
				reported = seq
			}
		}
	}
	for i, n := range iters {
		res.Schemes[i].N = n
	}
	if cfg.Progress != nil && reported < total {
		cfg.Progress(total, total, time.Since(start))
	}
	res.Finished = time.Now().UTC()
	return res, nil
}

// unit returns the description of the i-th thing Compare measures — a
// scheme of cfg.Schemes, then the peers' schemes — and the function that
// takes one iteration of it (with floorFirst, the primitive limit first).
func (m *measurer) unit(cfg Config, i int) (SchemeInfo, func(floorFirst bool) ([]*Sample, pake.Transcript, error)) {
	if i >= len(cfg.Schemes) {
		p := cfg.Peers[i-len(cfg.Schemes)]
		return p.Info(), func(bool) ([]*Sample, pake.Transcript, error) {
			smp, err := p.Sample()
			if err != nil {
				return nil, pake.Transcript{}, err
			}
			smp.Op = OpFull
			return []*Sample{&smp}, pake.Transcript{}, nil
		}
	}
	s := cfg.Schemes[i]
	info := s.Info()
	return schemeInfo(info), func(floorFirst bool) ([]*Sample, pake.Transcript, error) {
		reg, full, extra, tr, err := m.sample(s, info, floorFirst)
		if err != nil {
			return nil, tr, err
		}
		var out []*Sample
		for _, smp := range append([]*Sample{reg, full}, extra...) {
			if smp != nil && smp.Op != "" {
				out = append(out, smp)
			}
		}
		return out, tr, nil
	}
}

// sampleCost is the wall time of one iteration's samples (OpFloorOnline
// is timed inside OpFloor and not counted twice).
func sampleCost(smps []*Sample) time.Duration {
	var c time.Duration
	for _, smp := range smps {
		if smp.Op != OpFloorOnline {
			c += time.Duration(smp.WallNs)
		}
	}
	return c
}

// maxRounds bounds the sampling rounds of Compare.
const maxRounds = 4

func medianDuration(ds []time.Duration) time.Duration {
	s := append([]time.Duration(nil), ds...)
	sort.Slice(s, func(a, b int) bool { return s[a] < s[b] })
	return s[len(s)/2]
}

// Plan chooses the number of samples of each scheme from the cost of one
// sample, so that Σ nᵢ·costᵢ fits budget: every scheme gets the same time
// cap T, nᵢ = clamp(T/costᵢ, minN, maxN), with the largest T that fits
// (cheap schemes reach maxN, expensive ones the floor). A budget of zero
// or less means no limit.
func Plan(costs []time.Duration, maxN, minN int, budget time.Duration) []int {
	ns := make([]int, len(costs))
	fill := func(T float64) float64 {
		total := 0.0
		for i, c := range costs {
			cost := max(float64(c), 1)
			n := int(T / cost)
			n = max(minN, min(maxN, n))
			ns[i] = n
			total += float64(n) * cost
		}
		return total
	}
	hi := 0.0
	for _, c := range costs {
		hi = max(hi, float64(maxN)*max(float64(c), 1))
	}
	if budget <= 0 || fill(hi) <= float64(budget) {
		fill(hi)
		return ns
	}
	lo := 0.0
	for range 100 {
		mid := (lo + hi) / 2
		if fill(mid) <= float64(budget) {
			lo = mid
		} else {
			hi = mid
		}
	}
	fill(lo)
	return ns
}

func schemeInfo(in pake.Info) SchemeInfo {
	si := SchemeInfo{Name: in.Name, Suite: in.Suite, Spec: in.Spec,
		Augmented: in.Augmented, KeyConfirmation: in.KeyConfirmation, Profiles: pake.ProfilesOf(in.Name)}
	for _, m := range in.Messages {
		si.Messages = append(si.Messages, MessageInfo{Name: m.Name, From: m.From.String(),
			Size: m.Size, StudySize: m.StudySize, Variable: m.Variable})
		si.Size += m.Size
		si.StudySize += m.StudySize
	}
	return si
}

// checkWire records the actual message lengths of t in si and compares
// them with the sizes the scheme declares.
func checkWire(si *SchemeInfo, t pake.Transcript) string {
	if len(t.Messages) != len(si.Messages) {
		return fmt.Sprintf("mismatch: %d messages on the wire, Info declares %d", len(t.Messages), len(si.Messages))
	}
	var bad []string
	for i, msg := range t.Messages {
		si.Messages[i].Actual = len(msg)
		if m := si.Messages[i]; !(pake.Message{Size: m.Size, Variable: m.Variable}).Fits(len(msg)) {
			bad = append(bad, fmt.Sprintf("%s: %d bytes, Info declares %d", si.Messages[i].Name, len(msg), si.Messages[i].Size))
		}
	}
	if bad != nil {
		sort.Strings(bad)
		return fmt.Sprintf("mismatch: %v", bad)
	}
	return "ok"
}

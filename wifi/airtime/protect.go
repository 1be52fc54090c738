package airtime

import (
	"fmt"
	"runtime"
	"slices"
	"time"

	"github.com/kexlab/kexlab/bench/stats"
	"github.com/kexlab/kexlab/internal/pakeerr"
	"github.com/kexlab/kexlab/wifi/lwc"
	"github.com/kexlab/kexlab/wifi/lwc/ace"
	"github.com/kexlab/kexlab/wifi/mcu"
)

// The data-protection shapes of the talk's second table: one permutation
// call, the authenticated encryption of a 128-octet message with 0 or 16
// octets of associated data, and the hash of 128 octets (ACE-Hash-256,
// ace only).
const (
	OpPerm   = "perm"
	OpAE0    = "ae128-ad0"
	OpAE16   = "ae128-ad16"
	OpHash   = "hash128"
	MsgOctet = 128 // the protected message
	ADOctets = 16  // the associated data of OpAE16
)

// ProtectOps are the data-protection shapes, in table order.
var ProtectOps = []string{OpPerm, OpAE0, OpAE16, OpHash}

// ProtectedFrameOctets is the protected data frame on the air, before the
// link's framing: the 128-octet message, 16 octets of associated data and
// the 16-octet tag.
const ProtectedFrameOctets = MsgOctet + ADOctets + lwc.TagSize

// ProtectRow is one line of the data-protection table: a cipher on one
// platform, with the airtime of the protected frame on a link.
type ProtectRow struct {
	Cipher string `json:"cipher"`
	Link   string `json:"link"`
	Source string `json:"source"` // SourceMeasured or the platform
	// Time is the time of one call of each op (ProtectOps) that the
	// cipher has: medians measured here, or cycles / clock.
	Time map[string]time.Duration `json:"time_ns"`
	// Summary (measured here): per op, the samples, each the mean of
	// Batch[op] calls, in ns per call.
	Summary map[string]stats.Summary `json:"summary,omitempty"`
	Batch   map[string]int           `json:"batch,omitempty"`
	// Cycles (platform rows): per op, the cycles of one call.
	Cycles  map[string]int64 `json:"cycles,omitempty"`
	ClockHz float64          `json:"clock_hz,omitempty"`
	// FrameOctets and Tx: the protected frame and its airtime.
	FrameOctets int           `json:"frame_octets"`
	Tx          time.Duration `json:"tx_ns"`
}

// protectOp returns the function of one call of op with c, or nil when c
// has no such op (a hash, for every cipher but ace).
func protectOp(c lwc.Cipher, op string) (func(), error) {
	key, nonce := make([]byte, lwc.KeySize), make([]byte, lwc.NonceSize)
	msg, ad := make([]byte, MsgOctet), make([]byte, ADOctets)
	out := make([]byte, 0, MsgOctet+lwc.TagSize)
	switch op {
	case OpPerm:
		return c.Permute, nil
	case OpAE0, OpAE16:
		a := ad
		if op == OpAE0 {
			a = nil
		}
		if _, err := c.New(key); err != nil {
			return nil, err
		}
		return func() {
			aead, _ := c.New(key) // the key setup is part of protecting one frame; New cannot fail after the call above
			out = aead.Seal(out[:0], nonce, msg, a)
		}, nil
	case OpHash:
		if c.Name != "ace" {
			return nil, nil
		}
		return func() { _ = ace.Sum256(msg) }, nil
	}
	return nil, fmt.Errorf("%w: unknown data-protection op %q", pakeerr.ErrInvalidParameter, op)
}

// batchTarget is the least time of one sample: calls shorter than the
// clock's resolution and overhead are timed in batches.
const batchTarget = 20 * time.Microsecond

// MeasureProtect times every data-protection op of c: n samples per op,
// each the mean of a batch of calls sized so that a batch takes at least
// 20 µs, the ops interleaved (one sample of each in turn).
func MeasureProtect(c lwc.Cipher, n int, model lwc.Model) (ProtectRow, error) {
	if n < 2 {
		return ProtectRow{}, fmt.Errorf("%w: n = %d (want at least 2)", pakeerr.ErrInvalidParameter, n)
	}
	row := ProtectRow{Cipher: c.Name, Link: model.Label(), Source: SourceMeasured, Time: map[string]time.Duration{},
		Summary: map[string]stats.Summary{}, Batch: map[string]int{}}
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	fs, samples := map[string]func(){}, map[string][]float64{}
	var ops []string
	for _, op := range ProtectOps {
		f, err := protectOp(c, op)
		if err != nil {
			return row, err
		}
		if f == nil {
			continue
		}
		k := 1 // warm up and size the batch
		for ; k < 1<<20; k *= 2 {
			if timeBatch(f, k) >= batchTarget {
				break
			}
		}
		ops, fs[op], row.Batch[op] = append(ops, op), f, k
	}
	for range n {
		for _, op := range ops {
			k := row.Batch[op]
			samples[op] = append(samples[op], float64(timeBatch(fs[op], k))/float64(k))
		}
	}
	for _, op := range ops {
		s, err := stats.Summarize(slices.Clone(samples[op]))
		if err != nil {
			return row, fmt.Errorf("%s %s: %w", c.Name, op, err)
		}
		row.Summary[op], row.Time[op] = s, time.Duration(s.Median)
	}
	return row.tx(model)
}

func timeBatch(f func(), k int) time.Duration {
	start := time.Now()
	for range k {
		f()
	}
	return time.Since(start)
}

// tx sets the protected frame's airtime on model.
func (r ProtectRow) tx(model lwc.Model) (ProtectRow, error) {
	r.FrameOctets = ProtectedFrameOctets
	tx, _, err := model.Tx([]int{r.FrameOctets})
	if err != nil {
		return r, err
	}
	r.Tx = tx
	return r, nil
}

// PlatformProtect is the data-protection table of the microcontroller
// measurement m: per cipher (in lwc.Ciphers order), the cycles and times
// of the ops it has figures for (perm_cycles, ae128_ad0_cycles,
// ae128_ad16_cycles, hash_cycles; a count of 0 is not measured), and the
// protected frame's airtime on model.
func PlatformProtect(m *mcu.Measurement, model lwc.Model) ([]ProtectRow, error) {
	var rows []ProtectRow
	for _, c := range lwc.Ciphers() {
		mc, ok := m.Cipher(c.Name)
		if !ok {
			continue
		}
		row := ProtectRow{Cipher: c.Name, Link: model.Label(), Source: m.Platform, Time: map[string]time.Duration{},
			Cycles: map[string]int64{}, ClockHz: m.ClockHz}
		for op, cyc := range map[string]int64{OpPerm: mc.PermCycles, OpAE0: mc.AE128AD0Cycles, OpAE16: mc.AE128AD16Cycles, OpHash: mc.HashCycles} {
			if cyc <= 0 {
				continue
			}
			t, err := MCUTime(m, cyc)
			if err != nil {
				return nil, err
			}
			row.Cycles[op], row.Time[op] = cyc, t
		}
		row, err := row.tx(model)
		if err != nil {
			return nil, err
		}
		rows = append(rows, row)
	}
	return rows, nil
}

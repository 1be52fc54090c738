package bench

import (
	"fmt"
	"io"
	"runtime"
	"time"

	"github.com/kexlab/kexlab/bench/meter"
	"github.com/kexlab/kexlab/pake"
)

// measurer takes one sample at a time on a locked OS thread.
type measurer struct {
	rand   io.Reader
	energy *meter.RAPL
	cpu    bool
	ms     runtime.MemStats
	// prepared holds, per scheme name, the party factories of schemes that
	// implement pake.Preparer, made once (see OpOnline).
	prepared map[string]*factories
	// floors holds, per scheme name, the primitive limit of schemes that
	// implement pake.Floorer, prepared once (see OpFloor).
	floors map[string]*pake.Floor
}

// factories start prepared parties.
type factories struct{ client, server pake.PartyFactory }

// probe is the state of the meters at the start of a sample.
type probe struct {
	mallocs, bytes uint64
	energy         []uint64
	cpu            time.Duration
	wall           time.Time
}

// begin reads the meters, the slow ones first so that they stay outside the
// timed window.
func (m *measurer) begin() probe {
	var p probe
	runtime.ReadMemStats(&m.ms)
	p.mallocs, p.bytes = m.ms.Mallocs, m.ms.TotalAlloc
	if m.energy != nil {
		p.energy, _ = m.energy.Read()
	}
	if m.cpu {
		p.cpu, _ = meter.ThreadCPU()
	}
	p.wall = time.Now()
	return p
}

// end reads the meters in the reverse order of begin and fills s.
func (m *measurer) end(p probe, s *Sample) {
	wall := time.Since(p.wall)
	if m.cpu {
		if c, err := meter.ThreadCPU(); err == nil {
			s.CPUNs = int64(c - p.cpu)
		}
	}
	if m.energy != nil && p.energy != nil {
		if e, err := m.energy.Read(); err == nil {
			s.EnergyUJ = m.energy.Delta(p.energy, e)
		}
	}
	runtime.ReadMemStats(&m.ms)
	s.WallNs = int64(wall)
	s.Allocs = m.ms.Mallocs - p.mallocs
	s.AllocBytes = m.ms.TotalAlloc - p.bytes
}

// exchange registers (augmented schemes only; reg.Op is empty otherwise)
// and runs one exchange, timing every step.
func (m *measurer) exchange(s pake.Scheme, info pake.Info) (reg, full *Sample, t pake.Transcript, err error) {
	defer func() {
		if p := recover(); p != nil {
			reg, full, err = nil, nil, fmt.Errorf("%s panicked: %v", info.Name, p)
		}
	}()
	reg, full = &Sample{}, &Sample{Op: OpFull}
	var record []byte
	if info.Augmented {
		reg.Op = OpRegister
		p := m.begin()
		record, err = s.Register(m.rand, credentials)
		m.end(p, reg)
		if err != nil {
			return nil, nil, t, err
		}
	}
	newClient := func() (pake.Party, error) { return s.NewClient(m.rand, credentials) }
	newServer := func() (pake.Party, error) { return s.NewServer(m.rand, credentials, record) }
	t, err = m.run(info, full, newClient, newServer)
	return reg, full, t, err
}

// online runs one exchange between prepared parties (OpOnline). It returns
// nil when the scheme does not implement pake.Preparer.
func (m *measurer) online(s pake.Scheme, info pake.Info) (smp *Sample, err error) {
	p, ok := s.(pake.Preparer)
	if !ok {
		return nil, nil
	}
	defer func() {
		if r := recover(); r != nil {
			smp, err = nil, fmt.Errorf("%s panicked: %v", info.Name, r)
		}
	}()
	f := m.prepared[info.Name]
	if f == nil {
		var record []byte
		if info.Augmented {
			if record, err = s.Register(m.rand, credentials); err != nil {
				return nil, err
			}
		}
		f = &factories{}
		if f.client, err = p.PrepareClient(credentials); err != nil {
			return nil, err
		}
		if f.server, err = p.PrepareServer(credentials, record); err != nil {
			return nil, err
		}
		if m.prepared == nil {
			m.prepared = map[string]*factories{}
		}
		m.prepared[info.Name] = f
	}
	smp = &Sample{Op: OpOnline}
	newClient := func() (pake.Party, error) { return f.client(m.rand) }
	newServer := func() (pake.Party, error) { return f.server(m.rand) }
	if _, err := m.run(info, smp, newClient, newServer); err != nil {
		return nil, err
	}
	return smp, nil
}

// sample takes one iteration of a scheme: the registration and exchange
// (m.exchange), the online exchange (OpOnline) and the primitive limit
// (OpFloor, OpFloorOnline), each for schemes that support it. With
// floorFirst the limit is timed before the exchanges, otherwise after
// them: Compare alternates the two iteration by iteration, so that the
// exchange and its limit each run half of their samples right after
// another scheme's (cold caches, branch predictors, frequency) and half
// right after each other, and the paired ratio carries no order effect.
func (m *measurer) sample(s pake.Scheme, info pake.Info, floorFirst bool) (reg, full *Sample, extra []*Sample, t pake.Transcript, err error) {
	var floors []*Sample
	if floorFirst {
		if floors, err = m.floor(s, info); err != nil {
			return nil, nil, nil, t, err
		}
	}
	if reg, full, t, err = m.exchange(s, info); err != nil {
		return nil, nil, nil, t, err
	}
	online, err := m.online(s, info)
	if err != nil {
		return nil, nil, nil, t, err
	}
	if !floorFirst {
		if floors, err = m.floor(s, info); err != nil {
			return nil, nil, nil, t, err
		}
	}
	if online != nil {
		floors = append([]*Sample{online}, floors...)
	}
	return reg, full, floors, t, nil
}

// floor times the primitive limit of one exchange (OpFloor and, when the
// scheme has an online op and a password part, OpFloorOnline). It returns
// no samples when the scheme does not implement pake.Floorer.
func (m *measurer) floor(s pake.Scheme, info pake.Info) (smps []*Sample, err error) {
	fl, ok := s.(pake.Floorer)
	if !ok {
		return nil, nil
	}
	defer func() {
		if r := recover(); r != nil {
			smps, err = nil, fmt.Errorf("%s floor panicked: %v", info.Name, r)
		}
	}()
	f := m.floors[info.Name]
	if f == nil {
		if f, err = fl.Floor(m.rand); err != nil {
			return nil, fmt.Errorf("%s floor: %w", info.Name, err)
		}
		if f == nil || f.Online == nil {
			return nil, fmt.Errorf("%s floor: no operations", info.Name)
		}
		if m.floors == nil {
			m.floors = map[string]*pake.Floor{}
		}
		m.floors[info.Name] = f
	}
	online := &Sample{Op: OpFloorOnline}
	p := m.begin()
	err = f.Online()
	m.end(p, online)
	if err != nil {
		return nil, fmt.Errorf("%s floor: %w", info.Name, err)
	}
	if f.Password == nil {
		online.Op = OpFloor
		online.Steps = []Step{{Party: "both", Name: "online", Ns: online.WallNs}}
		return []*Sample{online}, nil
	}
	pw := &Sample{}
	p = m.begin()
	err = f.Password()
	m.end(p, pw)
	if err != nil {
		return nil, fmt.Errorf("%s floor: %w", info.Name, err)
	}
	full := &Sample{Op: OpFloor, WallNs: online.WallNs + pw.WallNs, CPUNs: online.CPUNs + pw.CPUNs,
		Allocs: online.Allocs + pw.Allocs, AllocBytes: online.AllocBytes + pw.AllocBytes,
		Steps: []Step{{Party: "both", Name: "online", Ns: online.WallNs}, {Party: "both", Name: "password", Ns: pw.WallNs}}}
	if online.EnergyUJ != nil && pw.EnergyUJ != nil {
		full.EnergyUJ = map[string]float64{}
		for k, v := range online.EnergyUJ {
			full.EnergyUJ[k] = v + pw.EnergyUJ[k]
		}
	}
	smps = []*Sample{full}
	if _, prepared := s.(pake.Preparer); prepared {
		smps = append(smps, online)
	}
	return smps, nil
}

// run creates both parties and runs them to the end inside one sample,
// timing every step.
func (m *measurer) run(info pake.Info, smp *Sample, newClient, newServer func() (pake.Party, error)) (t pake.Transcript, err error) {
	steps := make([]Step, 0, 2+2*len(info.Messages))
	tc := &timedParty{role: pake.Client, info: info, steps: &steps}
	ts := &timedParty{role: pake.Server, info: info, steps: &steps}
	var ck, sk []byte
	p := m.begin()
	t0 := time.Now()
	tc.p, err = newClient()
	t1 := time.Now()
	if err == nil {
		ts.p, err = newServer()
	}
	t2 := time.Now()
	if err == nil {
		ck, sk, t, err = pake.Run(tc, ts, nil)
	}
	m.end(p, smp)
	if err != nil {
		return t, err
	}
	if string(ck) != string(sk) {
		return t, pake.ErrAuthFailed
	}
	smp.Steps = append([]Step{
		{Party: "client", Name: "new", Ns: int64(t1.Sub(t0))},
		{Party: "server", Name: "new", Ns: int64(t2.Sub(t1))},
	}, steps...)
	smp.WireBytes = t.Bytes()
	return t, nil
}

// timedParty times every Next call of the party it wraps.
type timedParty struct {
	p     pake.Party
	role  pake.Role
	info  pake.Info
	steps *[]Step
	sent  int // messages this party has produced so far
}

func (t *timedParty) Next(in []byte) ([]byte, error) {
	t0 := time.Now()
	out, err := t.p.Next(in)
	d := time.Since(t0)
	name := "finish"
	if out != nil {
		name = t.messageName()
		t.sent++
	}
	*t.steps = append(*t.steps, Step{Party: t.role.String(), Name: name, Ns: int64(d), In: len(in), Out: len(out)})
	return out, err
}

// messageName is the Info name of the party's next message.
func (t *timedParty) messageName() string {
	k := 0
	for _, m := range t.info.Messages {
		if m.From != t.role {
			continue
		}
		if k == t.sent {
			return m.Name
		}
		k++
	}
	return "extra"
}

func (t *timedParty) Done() bool                  { return t.p.Done() }
func (t *timedParty) SessionKey() ([]byte, error) { return t.p.SessionKey() }

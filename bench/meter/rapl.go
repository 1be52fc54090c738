package meter

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
)

// DefaultPowercap is where Linux exposes the powercap zones.
const DefaultPowercap = "/sys/class/powercap"

// Domain is one readable RAPL zone.
type Domain struct {
	Name     string // e.g. "package-0", "core", "dram"; made unique by suffixing the zone
	Path     string // the zone directory
	MaxRange uint64 // max_energy_range_uj
}

// RAPL reads a set of RAPL zones.
type RAPL struct {
	Domains []Domain
}

// OpenRAPL finds the intel-rapl zones under root (normally
// [DefaultPowercap]) whose energy counter can be read. It fails, with a
// reason fit for a report, when there is none.
func OpenRAPL(root string) (*RAPL, error) {
	zones, err := filepath.Glob(filepath.Join(root, "intel-rapl:*"))
	if err != nil {
		return nil, err
	}
	if len(zones) == 0 {
		if _, err := os.Stat(root); err != nil {
			return nil, fmt.Errorf("no powercap interface (%s: %v)", root, errors.Unwrap(err))
		}
		return nil, fmt.Errorf("no intel-rapl zone under %s (not an Intel/AMD RAPL machine, or a VM that hides it)", root)
	}
	sort.Strings(zones)
	r := &RAPL{}
	seen := map[string]bool{}
	var firstErr error
	for _, z := range zones {
		name, err := readString(filepath.Join(z, "name"))
		if err == nil {
			var max uint64
			if max, err = readUint(filepath.Join(z, "max_energy_range_uj")); err == nil {
				if _, err = readUint(filepath.Join(z, "energy_uj")); err == nil {
					if seen[name] {
						name += "@" + filepath.Base(z)
					}
					seen[name] = true
					r.Domains = append(r.Domains, Domain{Name: name, Path: z, MaxRange: max})
					continue
				}
			}
		}
		if firstErr == nil {
			firstErr = err
		}
	}
	if len(r.Domains) == 0 {
		if errors.Is(firstErr, os.ErrPermission) {
			return nil, fmt.Errorf("RAPL counters not readable (energy_uj is root-only): %v", firstErr)
		}
		return nil, fmt.Errorf("RAPL counters not readable: %v", firstErr)
	}
	return r, nil
}

// Names returns the domain names in order.
func (r *RAPL) Names() []string {
	out := make([]string, len(r.Domains))
	for i, d := range r.Domains {
		out[i] = d.Name
	}
	return out
}

// Read returns the current counter of every domain, in microjoules.
func (r *RAPL) Read() ([]uint64, error) {
	out := make([]uint64, len(r.Domains))
	for i, d := range r.Domains {
		v, err := readUint(filepath.Join(d.Path, "energy_uj"))
		if err != nil {
			return nil, err
		}
		out[i] = v
	}
	return out, nil
}

// Delta returns the energy per domain between two readings, in
// microjoules, allowing for at most one wrap-around of each counter.
func (r *RAPL) Delta(before, after []uint64) map[string]float64 {
	out := make(map[string]float64, len(r.Domains))
	for i, d := range r.Domains {
		if i >= len(before) || i >= len(after) {
			break
		}
		out[d.Name] = float64(Wrap(before[i], after[i], d.MaxRange))
	}
	return out
}

// Wrap returns after − before for a counter that runs from 0 to maxRange
// and then starts again at 0.
func Wrap(before, after, maxRange uint64) uint64 {
	if after >= before {
		return after - before
	}
	return maxRange - before + after
}

func readString(path string) (string, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return "", err
	}
	return strings.TrimSpace(string(b)), nil
}

func readUint(path string) (uint64, error) {
	s, err := readString(path)
	if err != nil {
		return 0, err
	}
	v, err := strconv.ParseUint(s, 10, 64)
	if err != nil {
		return 0, fmt.Errorf("%s: %w", path, err)
	}
	return v, nil
}

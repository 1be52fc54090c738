package pake

import (
	"fmt"
	"sort"
	"sync"
)

var (
	registryMu sync.Mutex
	registry   = map[string]Scheme{}
)

// register adds a scheme; each scheme's adapter file calls it from init.
func register(s Scheme) {
	registryMu.Lock()
	defer registryMu.Unlock()
	name := s.Info().Name
	if _, dup := registry[name]; dup {
		panic("pake: scheme registered twice: " + name)
	}
	registry[name] = s
}

// All returns every registered scheme, sorted by name.
func All() []Scheme {
	registryMu.Lock()
	defer registryMu.Unlock()
	out := make([]Scheme, 0, len(registry))
	for _, s := range registry {
		out = append(out, s)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Info().Name < out[j].Info().Name })
	return out
}

// Lookup returns the scheme registered under name.
func Lookup(name string) (Scheme, error) {
	registryMu.Lock()
	defer registryMu.Unlock()
	s, ok := registry[name]
	if !ok {
		return nil, fmt.Errorf("%w: unknown scheme %q", ErrInvalidParameter, name)
	}
	return s, nil
}

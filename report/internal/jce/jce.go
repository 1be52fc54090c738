// Package jce recognises the benchmarks of the JCE provider study (jvm/):
// JMH runs whose names the importer writes as
// "Class.method:mode[algorithm=…,dataLength=…,keySize=…,op=…,provider=…,transformation=…]".
// Package report uses it to leave these benchmarks out of its all-pairs
// comparison; package report/providers builds the study's tables from them.
package jce

import (
	"strconv"
	"strings"

	"github.com/kexlab/kexlab/bench"
)

// Case is one benchmark of the provider study, identified by its six JMH
// parameters.
type Case struct {
	Scheme         string // the benchmark's name in the run
	Provider       string
	Algorithm      string // key algorithm: AES, DESede, RSA, DSA, EC, HmacSHA256, …
	KeySize        int    // bits
	Transformation string // cipher transformation, signature or MAC algorithm, or key generator
	DataLength     int    // bytes
	Op             string // keygen, encrypt, decrypt, sign, verify, mac
}

// Default reports whether the case uses a default transformation: a
// cipher requested by its algorithm name alone (mode and padding left to
// the provider), or a signature the paper counted as a default
// (NONEwith…: no hash; SHA1with…: SHA-1), against which SHA256with… and
// RSASSA-PSS are the recommended ones (its Tables 38–41).
func (c Case) Default() bool {
	switch c.Op {
	case "encrypt", "decrypt":
		return !strings.Contains(c.Transformation, "/")
	case "sign", "verify":
		return strings.HasPrefix(c.Transformation, "NONEwith") || strings.HasPrefix(c.Transformation, "SHA1with")
	}
	return false
}

// Family is the primitive family of the case, as the summaries group
// them: "key generation", "symmetric encryption", "RSA encryption",
// "signatures" or "MACs".
func (c Case) Family() string {
	switch {
	case c.Op == "keygen":
		return "key generation"
	case c.Op == "sign" || c.Op == "verify":
		return "signatures"
	case c.Op == "mac":
		return "MACs"
	case c.Algorithm == "RSA":
		return "RSA encryption"
	}
	return "symmetric encryption"
}

// Parse parses a benchmark name carrying the six parameters of the
// provider study. It reports false for any other name.
func Parse(scheme string) (Case, bool) {
	open := strings.LastIndexByte(scheme, '[')
	if open < 0 || !strings.HasSuffix(scheme, "]") {
		return Case{}, false
	}
	p := map[string]string{}
	for _, kv := range strings.Split(scheme[open+1:len(scheme)-1], ",") {
		k, v, ok := strings.Cut(kv, "=")
		if !ok {
			return Case{}, false
		}
		p[k] = v
	}
	ks, err1 := strconv.Atoi(p["keySize"])
	dl, err2 := strconv.Atoi(p["dataLength"])
	c := Case{Scheme: scheme, Provider: p["provider"], Algorithm: p["algorithm"], KeySize: ks,
		Transformation: p["transformation"], DataLength: dl, Op: p["op"]}
	if err1 != nil || err2 != nil || c.Provider == "" || c.Algorithm == "" || c.Transformation == "" || c.Op == "" {
		return Case{}, false
	}
	return c, true
}

// Cases returns the provider-study benchmarks of r, in the run's order.
func Cases(r *bench.Results) []Case {
	var out []Case
	for _, si := range r.Schemes {
		if c, ok := Parse(si.Name); ok {
			out = append(out, c)
		}
	}
	return out
}

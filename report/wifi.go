package report

import (
	"strings"

	"github.com/kexlab/kexlab/bench"
)

// wifiSource is the Source of the results `kexlab wifi -results` writes.
const wifiSource = "kexlab wifi"

// wifiOperation is the operation a benchmark of kexlab wifi measures: the
// last word of its name ("<suite> KDF", "<suite> MIC" (over whole EAPOL
// frames), "<suite> MIC-talk" (the talk's 4-block MIC), "<suite>
// handshake"; package wifi/airtime names them so).
func wifiOperation(scheme string) string {
	return scheme[strings.LastIndexByte(scheme, ' ')+1:]
}

// sameOperation is the pairing rule of a run's comparisons: in the results
// of kexlab wifi, whose benchmarks are different operations (a KDF, a MIC,
// a whole handshake) of several suites, only benchmarks of the same
// operation and shape are compared (KDF with KDF, MIC-talk with MIC-talk),
// never one suite's MIC with another's handshake. Other runs compare every
// pair (nil).
func sameOperation(r *bench.Results, names []string) func(i, j int) bool {
	if r.Source != wifiSource {
		return nil
	}
	return func(i, j int) bool { return wifiOperation(names[i]) == wifiOperation(names[j]) }
}

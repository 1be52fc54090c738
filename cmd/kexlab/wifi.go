package main

import (
	"crypto/rand"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/kexlab/kexlab/bench/export"
	"github.com/kexlab/kexlab/bench/stats"
	"github.com/kexlab/kexlab/wifi"
	"github.com/kexlab/kexlab/wifi/airtime"
	"github.com/kexlab/kexlab/wifi/keys"
	"github.com/kexlab/kexlab/wifi/lwc"
)

const wifiUsage = `usage: kexlab wifi <handshake|table> [flags]

  handshake  run complete 4-way handshakes (after SAE) with one KDF/MIC and
             print T_KDF, T_MIC, T_4way_tx and T_auth for one link
  table      the same for every KDF/MIC on several links (the talk's table)
  shape      repeat one KDF or MIC call -n times, for instruction counting
             (scripts/callgrind.sh runs it under valgrind --tool=callgrind)
`

func cmdWifi(args []string, stdout, stderr io.Writer) error {
	if len(args) == 0 {
		fmt.Fprint(stderr, wifiUsage)
		return fmt.Errorf("%w: no wifi command", errUsage)
	}
	switch args[0] {
	case "handshake", "table":
		return cmdWifiRun(args[0], args[1:], stdout, stderr)
	case "shape":
		return cmdWifiShape(args[1:], stderr)
	case "-h", "-help", "--help", "help":
		fmt.Fprint(stdout, wifiUsage)
		return nil
	}
	fmt.Fprint(stderr, wifiUsage)
	return fmt.Errorf("%w: unknown wifi command %q", errUsage, args[0])
}

// wifiOutput is the JSON of kexlab wifi handshake/table.
type wifiOutput struct {
	Model       lwc.Model      `json:"model"`
	Assumptions []string       `json:"assumptions"`
	SAE         *stats.Summary `json:"sae_ns,omitempty"`
	Rows        []airtime.Row  `json:"rows"`
}

func cmdWifiRun(name string, args []string, stdout, stderr io.Writer) error {
	fs := newFlags("wifi "+name, stderr)
	var keys []string
	for _, s := range airtime.Suites() {
		keys = append(keys, s.Key)
	}
	kdf := fs.String("kdf", "ace", "KDF and MIC: "+strings.Join(keys, "|"))
	link := fs.String("link", "54Mbps", "link rate with its unit (bps, kbps, Mbps, Gbps), 1bps to 1000Gbps, e.g. 16.82kbps, 54Mbps")
	links := fs.String("links", "16.82kbps,250kbps,1Mbps,54Mbps", "table: comma-separated link rates (as for -link)")
	n := fs.Int("n", 200, "handshakes measured per KDF/MIC, 2 to 1000000")
	overhead := fs.Int("overhead", lwc.DefaultFrameOverhead, fmt.Sprintf("octets of framing per EAPOL frame on the air, 0 to %d", lwc.MaxFrameOverhead))
	perFrame := fs.Duration("perframe", 0, fmt.Sprintf("fixed time per frame (preamble, SIFS, ACK), 0 to %v", lwc.MaxPerFrame))
	psk := fs.String("psk", "", "take the PMK from this passphrase (PBKDF2) instead of an SAE run")
	jsonOut := fs.String("json", "", "also write the table as JSON to this file")
	resultsOut := fs.String("results", "", "also write every sample as results JSON for kexlab report")
	if err := parse(fs, args); err != nil {
		return err
	}
	if *n < 2 || *n > 1_000_000 {
		return fmt.Errorf("%w: -n %d out of range (2 to 1000000)", errUsage, *n)
	}
	suites := airtime.Suites()
	rates, rateFlag := strings.Split(*links, ","), "-links"
	if name == "handshake" {
		s, err := airtime.Lookup(*kdf)
		if err != nil {
			return fmt.Errorf("%w: %v", errUsage, err)
		}
		suites, rates, rateFlag = []airtime.Suite{s}, []string{*link}, "-link"
	}
	var models []lwc.Model
	for _, r := range rates {
		bps, err := lwc.ParseRate(r)
		if err != nil {
			return fmt.Errorf("%w: %s: %v", errUsage, rateFlag, err)
		}
		m := lwc.Model{LinkBps: bps, FrameOverhead: *overhead, PerFrame: *perFrame}
		if err := m.Validate(); err != nil { // -overhead and -perframe against the model's bounds
			return fmt.Errorf("%w: %v", errUsage, err)
		}
		models = append(models, m)
	}
	out := wifiOutput{Model: models[0], Assumptions: airtime.Assumptions(models[0])}
	pmk, err := wifiPMK(*psk, *n, &out, stdout)
	if err != nil {
		return err
	}
	var ms []*airtime.Measurement
	for _, s := range suites {
		m, err := airtime.Measure(s, airtime.Config{N: *n, PMK: pmk})
		if err != nil {
			return err
		}
		ms = append(ms, m)
		for _, model := range models {
			row, err := airtime.Evaluate(m, model)
			if err != nil {
				return err
			}
			out.Rows = append(out.Rows, row)
		}
	}
	printWifi(stdout, out)
	if *jsonOut != "" {
		b, err := json.MarshalIndent(out, "", "  ")
		if err != nil {
			return err
		}
		if err := os.WriteFile(*jsonOut, append(b, '\n'), 0o644); err != nil {
			return err
		}
	}
	if *resultsOut != "" {
		f, err := os.Create(*resultsOut)
		if err != nil {
			return err
		}
		if err := export.WriteJSON(f, airtime.Results(ms, "")); err != nil {
			f.Close()
			return err
		}
		return f.Close()
	}
	return nil
}

// wifiPMK returns the PMK: from a passphrase, or from n SAE runs between
// two stations (hash-to-element, group 19), whose time it records.
func wifiPMK(psk string, n int, out *wifiOutput, stdout io.Writer) ([]byte, error) {
	ssid := []byte("kexlab")
	if psk != "" {
		pmk, err := keys.PMKFromPassphrase(psk, ssid)
		if err != nil {
			return nil, fmt.Errorf("%w: %v", errUsage, err)
		}
		fmt.Fprintln(stdout, "PMK: PBKDF2-HMAC-SHA-1(passphrase, SSID \"kexlab\", 4096)")
		return pmk, nil
	}
	sta, ap := [6]byte{2, 0, 0, 0, 0, 2}, [6]byte{2, 0, 0, 0, 0, 1}
	var pmk []byte
	var ts []float64
	for i := 0; i < min(n, 50); i++ {
		start := time.Now()
		r, err := wifi.RunSAE(rand.Reader, ssid, []byte("kexlab wifi"), sta, ap, true)
		if err != nil {
			return nil, err
		}
		ts = append(ts, float64(time.Since(start)))
		pmk = r.PMK
	}
	s, err := stats.Summarize(ts)
	if err != nil {
		return nil, err
	}
	out.SAE = &s
	fmt.Fprintf(stdout, "PMK: SAE (WPA3, group 19, hash-to-element), both stations in process: median %s over n=%d [IQR %s]\n",
		dur(s.Median), s.N, dur(s.IQR))
	return pmk, nil
}

func printWifi(w io.Writer, out wifiOutput) {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "KDF/MIC\tsuite\tlink\tn\tT_KDF\tT_MIC\tT_4way_tx\tT_auth\tframes (octets)\thandshake in process\t")
	for _, r := range out.Rows {
		fmt.Fprintf(tw, "%s\t%s\t%s\t%d\t%s\t%s\t%s\t%s\t%d/%d/%d/%d\t%s\t\n", r.Key, r.Suite, r.Link, r.N,
			dur(r.KDF.Median), dur(r.MIC.Median), dur(float64(r.Tx)), dur(float64(r.Auth)),
			r.Frames[0], r.Frames[1], r.Frames[2], r.Frames[3], dur(r.Handshake.Median))
	}
	tw.Flush()
	fmt.Fprintln(w, "T_KDF and T_MIC: medians of every call in the measured handshakes (both stations).")
	for _, c := range lwc.Ciphers() {
		fmt.Fprintf(w, "state: %-5s %d-bit permutation state (%d octets), %d-bit rate: %s\n", c.Name, c.StateBits, (c.StateBits+7)/8, c.RateBits, c.Spec)
	}
	for _, a := range out.Assumptions {
		fmt.Fprintln(w, "model:", a)
	}
}

func cmdWifiShape(args []string, stderr io.Writer) error {
	fs := newFlags("wifi shape", stderr)
	kdf := fs.String("kdf", "ace", "KDF and MIC (as for wifi handshake)")
	op := fs.String("op", "kdf", "operation: "+strings.Join(airtime.Shapes, "|"))
	n := fs.Int("n", 1000, "repetitions, 1 to 1000000000")
	if err := parse(fs, args); err != nil {
		return err
	}
	if *n < 1 || *n > 1_000_000_000 {
		return fmt.Errorf("%w: -n %d out of range (1 to 1000000000)", errUsage, *n)
	}
	s, err := airtime.Lookup(*kdf)
	if err != nil {
		return fmt.Errorf("%w: %v", errUsage, err)
	}
	f, err := airtime.Shape(s, *op)
	if err != nil {
		return fmt.Errorf("%w: %v", errUsage, err)
	}
	for range *n {
		if err := f(); err != nil {
			return err
		}
	}
	return nil
}

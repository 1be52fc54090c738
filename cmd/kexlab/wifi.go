package main

import (
	"crypto/rand"
	"errors"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/kexlab/kexlab/bench/export"
	"github.com/kexlab/kexlab/bench/stats"
	"github.com/kexlab/kexlab/wifi"
	"github.com/kexlab/kexlab/wifi/airtime"
	"github.com/kexlab/kexlab/wifi/keys"
	"github.com/kexlab/kexlab/wifi/lwc"
	"github.com/kexlab/kexlab/wifi/mcu"
)

const wifiUsage = `usage: kexlab wifi <handshake|table|protect|mcu|shape> [flags]

  handshake  run complete 4-way handshakes (after SAE) with one KDF/MIC and
             print T_KDF, T_MIC, T_4way_tx and T_auth for one link
  table      the same for every KDF/MIC on several links (the talk's table)
  protect    the talk's data-protection table: one permutation, AE of a
             128-octet message with 0 and 16 octets of AD, ACE-Hash of 128
             octets, and the airtime of the protected frame (128 + 16 + 16
             octets plus framing) on one link
  mcu        run the C ciphers on the simulated microcontrollers (-platform
             atmega128|cortex-m3|all): every KAT, then flash, SRAM and the
             cycles of setup, permutation, KDF, MICs and AE; writes
             out/wifi-mcu/<platform>.json (-o DIR) for -platform below.
             atmega128: simavr, exact cycles; cortex-m3: QEMU's exact
             instruction trace × a Cortex-M3 cycle model; msp430: not
             available (no MSP430 compiler in Debian 12). Needs avr-gcc,
             simavr, arm-none-eabi-gcc and qemu-system-arm (make wifi-mcu
             installs them); -short: a KAT subset, under a minute
  shape      repeat one KDF or MIC call -n times, for instruction counting
             (scripts/callgrind.sh runs it under valgrind --tool=callgrind)

T_auth = T_4way_tx + 2·T_KDF + 3·T_MIC. Where T_KDF and T_MIC come from:
  -platform x86        measured here, in real handshakes (the default)
  -platform atmega128  cycle counts of the C implementations on a simulated
  -platform cortex-m3  microcontroller, read from out/wifi-mcu/<platform>.json
                       (kexlab wifi mcu or make wifi-mcu writes it;
                       -mcu-results FILE overrides);
                       time = cycles / clock
  -kdf-time D -mic-time D   times measured on real hardware, for the -kdf
                       row (marked "given")
-mic frame|talk: the MIC whose time enters T_MIC: frame = over each whole
EAPOL frame, as the handshake does (default); talk = the talk's shape, four
64-bit blocks of associated data and no message (AD = 4, M = 0).

Links: a rate with its unit (16.82kbps, 54Mbps) with -overhead octets of
framing and -perframe fixed time per frame, or the preset
  sdr-16.82k  the talk's USRP/GNU Radio 802.11a link: 16.82 kbit/s, 36 octets
              of 802.11 framing and 101.516052ms per frame. Calibration: the
              talk measured T_4way_tx = 690–730 ms and its T_auth figures use
              700 ms (SPIX, ATmega128: 956.4 = 700 + 2·44.08 + 3·56.08 ms).
              kexlab's four EAPOL frames, 99+121+155+99 = 474 octets, plus
              4·36 octets of framing are 4944 bits, 293.935791 ms at 16.82
              kbit/s; the remaining 406.064209 ms over four frames is the SDR
              chain's fixed cost per frame, 101.516052 ms. The preset's
              T_4way_tx is 699.999999 ms. (The earlier "-overhead 249" put
              that cost into octets: (700 ms·16820/8 − 474)/4 = 249.4 octets
              per frame, 699.17 ms with 249.)
`

func cmdWifi(args []string, stdout, stderr io.Writer) error {
	if len(args) == 0 {
		fmt.Fprint(stderr, wifiUsage)
		return fmt.Errorf("%w: no wifi command", errUsage)
	}
	switch args[0] {
	case "handshake", "table":
		return cmdWifiRun(args[0], args[1:], stdout, stderr)
	case "protect":
		return cmdWifiProtect(args[1:], stdout, stderr)
	case "mcu":
		return cmdWifiMCU(args[1:], stdout, stderr)
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
	Models      []lwc.Model    `json:"models"`
	Platform    string         `json:"platform"`
	MICShape    string         `json:"mic_shape"`
	MCU         *wifiMCUInfo   `json:"mcu,omitempty"`
	Assumptions []string       `json:"assumptions"`
	SAE         *stats.Summary `json:"sae_ns,omitempty"`
	Rows        []airtime.Row  `json:"rows"`
}

// wifiMCUInfo is where a platform's figures came from.
type wifiMCUInfo struct {
	File       string  `json:"file"`
	ClockHz    float64 `json:"clock_hz"`
	CycleModel string  `json:"cycle_model"`
	Toolchain  string  `json:"toolchain"`
	Simulator  string  `json:"simulator"`
}

// printHeader is the first line of a platform's table.
func (mi *wifiMCUInfo) printHeader(w io.Writer, platform string) {
	fmt.Fprintf(w, "platform %s at %g MHz: %s; %s; cycle model: %s (%s)\n", platform, mi.ClockHz/1e6,
		printable(mi.Toolchain), printable(mi.Simulator), printable(mi.CycleModel), mi.File)
}

// Platforms of -platform: x86 is measured here, the others
// (mcu.Platforms()) read from their measurement files.
const platformHere = "x86"

// maxGivenTime bounds -kdf-time and -mic-time.
const maxGivenTime = time.Hour

// linkFlags are the link flags every wifi command shares.
type linkFlags struct {
	overhead *int
	perFrame *time.Duration
}

func addLinkFlags(fs *flag.FlagSet) linkFlags {
	return linkFlags{
		overhead: fs.Int("overhead", lwc.DefaultFrameOverhead, fmt.Sprintf("octets of framing per frame on the air, 0 to %d (not with a preset link)", lwc.MaxFrameOverhead)),
		perFrame: fs.Duration("perframe", 0, fmt.Sprintf("fixed time per frame (preamble, SIFS, ACK), 0 to %v (not with a preset link)", lwc.MaxPerFrame)),
	}
}

// models reads link specs (rates or presets; flagName names the flag in
// errors) into models: a rate gets -overhead and -perframe, a preset its
// own framing, and setting either flag with a preset is refused.
func (lf linkFlags) models(fs *flag.FlagSet, specs []string, flagName string) ([]lwc.Model, error) {
	var out []lwc.Model
	for _, spec := range specs {
		m, preset, err := lwc.ParseLink(spec)
		if err != nil {
			return nil, fmt.Errorf("%w: %s: %v", errUsage, flagName, err)
		}
		if preset {
			if flagSet(fs, "overhead") || flagSet(fs, "perframe") {
				return nil, fmt.Errorf("%w: -overhead and -perframe do not apply to the preset link %s (%d octets and %v per frame); for a manual model give a rate, e.g. -link 16.82kbps -overhead 36",
					errUsage, m.Name, m.FrameOverhead, m.PerFrame)
			}
		} else {
			m.FrameOverhead, m.PerFrame = *lf.overhead, *lf.perFrame
		}
		if err := m.Validate(); err != nil { // -overhead and -perframe against the model's bounds
			return nil, fmt.Errorf("%w: %v", errUsage, err)
		}
		out = append(out, m)
	}
	return out, nil
}

// platformFlags are -platform and -mcu-results.
type platformFlags struct{ platform, file *string }

func addPlatformFlags(fs *flag.FlagSet) platformFlags {
	return platformFlags{
		platform: fs.String("platform", platformHere, "where T_KDF/T_MIC come from: x86 (measured here), "+strings.Join(mcu.Platforms(), ", ")+" (cycle counts from -mcu-results)"),
		file:     fs.String("mcu-results", "", "the MCU measurement file (default out/wifi-mcu/<platform>.json, written by kexlab wifi mcu and make wifi-mcu)"),
	}
}

// load checks -platform and, for a microcontroller, reads its figures
// with mcu.ReadJSON (nil for x86).
func (pf platformFlags) load() (*mcu.Measurement, *wifiMCUInfo, error) {
	p := *pf.platform
	if p == platformHere {
		if *pf.file != "" {
			return nil, nil, fmt.Errorf("%w: -mcu-results needs -platform %s", errUsage, strings.Join(mcu.Platforms(), "|"))
		}
		return nil, nil, nil
	}
	if !slices.Contains(mcu.Platforms(), p) {
		return nil, nil, fmt.Errorf("%w: unknown -platform %q (have %s, %s)", errUsage, p, platformHere, strings.Join(mcu.Platforms(), ", "))
	}
	path, given := *pf.file, *pf.file != ""
	if !given {
		path = filepath.Join(mcuResultsDir, p+".json")
	}
	res, err := mcu.ReadJSON(path)
	switch {
	case errors.Is(err, fs.ErrNotExist) && !given:
		return nil, nil, fmt.Errorf("no measurement for %s: run make wifi-mcu (or give -mcu-results FILE)", p)
	case errors.Is(err, mcu.ErrJSON):
		return nil, nil, fmt.Errorf("%s: %v", path, err)
	case err != nil:
		return nil, nil, fmt.Errorf("no measurement for %s: %v", p, err)
	}
	if res.Platform != p {
		return nil, nil, fmt.Errorf("%s: measurements of %s, not of -platform %s", path, res.Platform, p)
	}
	return res, &wifiMCUInfo{File: path, ClockHz: res.ClockHz, CycleModel: res.CycleModel, Toolchain: res.Toolchain, Simulator: res.Simulator}, nil
}

func cmdWifiRun(name string, args []string, stdout, stderr io.Writer) error {
	fs := newFlags("wifi "+name, stderr)
	var keys []string
	for _, s := range airtime.Suites() {
		keys = append(keys, s.Key)
	}
	kdf := fs.String("kdf", "ace", "KDF and MIC: "+strings.Join(keys, "|")+"; with -kdf-time/-mic-time, the row they are for")
	link := fs.String("link", "54Mbps", "link: a rate with its unit (bps, kbps, Mbps, Gbps), 1bps to 1000Gbps, e.g. 16.82kbps, 54Mbps, or the preset sdr-16.82k (the talk's SDR link: 16.82kbps, 36 octets and 101.516052ms per frame, calibrated so the four EAPOL frames take the talk's 700 ms; kexlab wifi help); table: the one link, instead of -links")
	links := fs.String("links", "16.82kbps,250kbps,1Mbps,54Mbps", "table: comma-separated links (as for -link)")
	n := fs.Int("n", 200, "handshakes measured per KDF/MIC, 2 to 1000000")
	lf := addLinkFlags(fs)
	pf := addPlatformFlags(fs)
	micFlag := fs.String("mic", airtime.MICFrame, "the MIC whose time is T_MIC: frame (each whole EAPOL frame) or talk (4 64-bit blocks of AD, no message)")
	kdfTime := fs.Duration("kdf-time", 0, fmt.Sprintf("T_KDF measured elsewhere, with -mic-time, for the -kdf row (above 0, at most %v)", maxGivenTime))
	micTime := fs.Duration("mic-time", 0, fmt.Sprintf("T_MIC measured elsewhere (of the -mic shape), with -kdf-time (above 0, at most %v)", maxGivenTime))
	psk := fs.String("psk", "", "take the PMK from this passphrase (PBKDF2) instead of an SAE run")
	jsonOut := fs.String("json", "", "also write the table as JSON to this file")
	resultsOut := fs.String("results", "", "also write every sample measured here as results JSON for kexlab report")
	if err := parse(fs, args); err != nil {
		return err
	}
	if *n < 2 || *n > 1_000_000 {
		return fmt.Errorf("%w: -n %d out of range (2 to 1000000)", errUsage, *n)
	}
	shape, err := airtime.ParseMICShape(*micFlag)
	if err != nil || *micFlag == "" {
		return fmt.Errorf("%w: unknown -mic %q (have frame, talk)", errUsage, *micFlag)
	}
	given, err := givenTimes(fs, name, *kdfTime, *micTime)
	if err != nil {
		return err
	}
	sel, err := airtime.Lookup(*kdf)
	if err != nil {
		return fmt.Errorf("%w: %v", errUsage, err)
	}
	specs, rateFlag := strings.Split(*links, ","), "-links"
	switch {
	case name == "handshake":
		specs, rateFlag = []string{*link}, "-link"
	case flagSet(fs, "link") && flagSet(fs, "links"):
		return fmt.Errorf("%w: wifi table takes -link (one link) or -links, not both", errUsage)
	case flagSet(fs, "link"):
		specs, rateFlag = []string{*link}, "-link"
	}
	models, err := lf.models(fs, specs, rateFlag)
	if err != nil {
		return err
	}
	meas, info, err := pf.load()
	if err != nil {
		return err
	}
	suites := airtime.Suites()
	if name == "handshake" {
		suites = []airtime.Suite{sel}
	}
	if meas != nil { // a microcontroller has figures for the lightweight ciphers in its file
		var have []airtime.Suite
		for _, s := range suites {
			if _, ok := meas.Cipher(s.Key); ok || (given && s.Key == sel.Key) {
				have = append(have, s)
			}
		}
		if len(have) == 0 {
			return fmt.Errorf("%s has no figures for %s", info.File, *kdf)
		}
		suites = have
	}
	measureHere := meas == nil && !(given && len(suites) == 1)
	if *resultsOut != "" && !measureHere {
		return fmt.Errorf("%w: -results holds samples measured here; with -platform %s or -kdf-time/-mic-time nothing is", errUsage, *pf.platform)
	}
	out := wifiOutput{Model: models[0], Models: models, Platform: *pf.platform, MICShape: shape, MCU: info,
		Assumptions: airtime.Assumptions(models, shape)}
	var pmk []byte
	if measureHere {
		if pmk, err = wifiPMK(*psk, *n, &out, stdout); err != nil {
			return err
		}
	}
	var ms []*airtime.Measurement
	for _, s := range suites {
		rows, m, err := wifiRows(s, models, wifiSource{given: given && s.Key == sel.Key, kdf: *kdfTime, mic: *micTime,
			mcu: meas, shape: shape, n: *n, pmk: pmk})
		if err != nil {
			return err
		}
		if m != nil {
			ms = append(ms, m)
		}
		out.Rows = append(out.Rows, rows...)
	}
	if meas != nil {
		printWifiMCU(stdout, out)
	} else {
		printWifi(stdout, out)
	}
	if *jsonOut != "" {
		if err := writeJSONFile(*jsonOut, out); err != nil {
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

// givenTimes checks -kdf-time and -mic-time: both or neither, each above
// 0 and at most maxGivenTime; in a table, -kdf must name their row.
func givenTimes(fs *flag.FlagSet, name string, kdf, mic time.Duration) (bool, error) {
	k, m := flagSet(fs, "kdf-time"), flagSet(fs, "mic-time")
	switch {
	case !k && !m:
		return false, nil
	case k != m:
		return false, fmt.Errorf("%w: -kdf-time and -mic-time go together (times measured elsewhere for one KDF and one MIC)", errUsage)
	case kdf <= 0 || kdf > maxGivenTime:
		return false, fmt.Errorf("%w: -kdf-time %v out of range (above 0, at most %v)", errUsage, kdf, maxGivenTime)
	case mic <= 0 || mic > maxGivenTime:
		return false, fmt.Errorf("%w: -mic-time %v out of range (above 0, at most %v)", errUsage, mic, maxGivenTime)
	case name == "table" && !flagSet(fs, "kdf"):
		return false, fmt.Errorf("%w: -kdf-time and -mic-time in wifi table need -kdf NAME, the row they are for", errUsage)
	}
	return true, nil
}

// wifiSource says where one suite's T_KDF and T_MIC come from.
type wifiSource struct {
	given    bool
	kdf, mic time.Duration
	mcu      *mcu.Measurement
	shape    string
	n        int
	pmk      []byte
}

// wifiRows is one suite on every link, and its measurement when it was
// measured here.
func wifiRows(s airtime.Suite, models []lwc.Model, src wifiSource) ([]airtime.Row, *airtime.Measurement, error) {
	var rows []airtime.Row
	if src.given || src.mcu != nil {
		frames, err := airtime.Frames(s)
		if err != nil {
			return nil, nil, err
		}
		for _, model := range models {
			var r airtime.Row
			if src.given {
				r, err = airtime.Given(s, frames, src.kdf, src.mic, src.shape, airtime.SourceGiven, model)
				if src.mcu != nil && err == nil {
					if mc, ok := src.mcu.Cipher(s.Key); ok { // the sizes still describe the platform
						r.MCU, r.ClockHz = &mc, src.mcu.ClockHz
					}
				}
			} else {
				var rs []airtime.Row
				if rs, err = airtime.Platform(onlyCipher(src.mcu, s.Key), map[string][4]int{s.Key: frames}, src.shape, model); err == nil {
					r = rs[0]
				}
			}
			if err != nil {
				return nil, nil, err
			}
			rows = append(rows, r)
		}
		return rows, nil, nil
	}
	m, err := airtime.Measure(s, airtime.Config{N: src.n, PMK: src.pmk, MIC: src.shape})
	if err != nil {
		return nil, nil, err
	}
	for _, model := range models {
		r, err := airtime.Evaluate(m, model)
		if err != nil {
			return nil, nil, err
		}
		rows = append(rows, r)
	}
	return rows, m, nil
}

// onlyCipher is m with the figures of one cipher.
func onlyCipher(m *mcu.Measurement, key string) *mcu.Measurement {
	one := *m
	c, _ := m.Cipher(key)
	one.Ciphers = []mcu.CipherResult{c}
	return &one
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

// durFine formats a duration with up to 7 significant digits, so that the
// microseconds of T_KDF and T_MIC show in a T_auth of hundreds of ms.
func durFine(d time.Duration) string { return durDigits(d, 7) }

// msec formats a duration in milliseconds with two decimals, as the talk's
// tables do.
func msec(d time.Duration) string { return fmt.Sprintf("%.2fms", float64(d)/1e6) }

func printWifi(w io.Writer, out wifiOutput) {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintf(tw, "KDF/MIC\tsuite\tlink\tsource\tn\tT_KDF\tT_MIC (%s)\tT_4way_tx\tT_auth\tframes (octets)\thandshake in process\t\n", out.MICShape)
	for _, r := range out.Rows {
		n, hs := fmt.Sprint(r.N), dur(r.Handshake.Median)
		if r.Source != airtime.SourceMeasured {
			n, hs = "—", "—"
		}
		kdf, mic := dur(float64(r.TKDF)), dur(float64(r.TMIC)) // medians: three digits
		if r.Source != airtime.SourceMeasured {
			kdf, mic = durFine(r.TKDF), durFine(r.TMIC) // as given
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%d/%d/%d/%d\t%s\t\n", r.Key, r.Suite, r.Link, r.Source, n,
			kdf, mic, durFine(r.Tx), durFine(r.Auth),
			r.Frames[0], r.Frames[1], r.Frames[2], r.Frames[3], hs)
	}
	tw.Flush()
	if hasSource(out.Rows, airtime.SourceMeasured) {
		fmt.Fprintln(w, "measured: T_KDF and T_MIC are medians of every call in the measured handshakes (both stations), on this machine.")
	}
	if hasSource(out.Rows, airtime.SourceGiven) {
		fmt.Fprintln(w, "given: T_KDF and T_MIC from -kdf-time and -mic-time (measured elsewhere), not measured here.")
	}
	for _, c := range lwc.Ciphers() {
		fmt.Fprintf(w, "state: %-5s %d-bit permutation state (%d octets), %d-bit rate: %s\n", c.Name, c.StateBits, (c.StateBits+7)/8, c.RateBits, c.Spec)
	}
	for _, a := range out.Assumptions {
		fmt.Fprintln(w, "model:", a)
	}
}

func hasSource(rows []airtime.Row, src string) bool {
	for _, r := range rows {
		if r.Source == src {
			return true
		}
	}
	return false
}

// printWifiMCU prints the talk's table for a microcontroller: per cipher
// Flash, SRAM, setup cycles, throughput, T_KDF, T_MIC, T_4way_tx, T_auth.
func printWifiMCU(w io.Writer, out wifiOutput) {
	out.MCU.printHeader(w, out.Platform)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintf(tw, "cipher\tlink\tsource\tKAT\tFlash (B)\tSRAM (B)\tsetup (cycles)\tthroughput (kbit/s)\tT_KDF\tT_MIC (%s)\tT_4way_tx\tT_auth\t\n", out.MICShape)
	var failed []string
	for _, r := range out.Rows {
		kat, flash, sram, setup, tput := "—", "—", "—", "—", "—"
		if c := r.MCU; c != nil {
			kat, flash, sram = fmt.Sprintf("%d/%d", c.KATPassed, c.KATTotal), fmt.Sprint(c.FlashBytes), fmt.Sprint(c.SRAMBytes)
			setup = fmt.Sprint(c.SetupCycles)
			if t := airtime.Throughput(*c, r.ClockHz); t > 0 {
				tput = fmt.Sprintf("%.2f", t/1e3)
			}
			if c.KATTotal == 0 || c.KATPassed != c.KATTotal {
				failed = append(failed, fmt.Sprintf("%s (%d of %d)", r.Key, c.KATPassed, c.KATTotal))
			}
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t\n", r.Key, r.Link, r.Source, kat, flash, sram, setup, tput,
			msec(r.TKDF), msec(r.TMIC), msec(r.Tx), msec(r.Auth))
	}
	tw.Flush()
	if len(failed) > 0 {
		fmt.Fprintf(w, "WARNING: known-answer tests not all passed on %s: %s; those rows time code that is not the cipher\n", out.Platform, strings.Join(failed, ", "))
	}
	micNote := "mic_talk_cycles: 4 64-bit blocks of AD"
	if out.MICShape == airtime.MICFrame {
		micNote = "mic_frame_cycles: a 121-octet frame, message 2"
	}
	fmt.Fprintf(w, "%s: T_KDF and T_MIC = cycles / clock (kdf_cycles; %s); throughput = 8 · clock / cycles_per_byte.\n", out.Platform, micNote)
	if hasSource(out.Rows, airtime.SourceGiven) {
		fmt.Fprintln(w, "given: T_KDF and T_MIC from -kdf-time and -mic-time (measured elsewhere), not from the file.")
	}
	for _, a := range out.Assumptions {
		fmt.Fprintln(w, "model:", a)
	}
}

// printable replaces control characters (mcu.ReadJSON lets them through in
// the file's strings) for a terminal.
func printable(s string) string {
	return strings.Map(func(r rune) rune {
		if r < 0x20 || r == 0x7f {
			return ' '
		}
		return r
	}, s)
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

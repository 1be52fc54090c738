package main

import (
	"fmt"
	"io"
	"strings"
	"text/tabwriter"

	"github.com/kexlab/kexlab/wifi/airtime"
	"github.com/kexlab/kexlab/wifi/lwc"
)

// protectOutput is the JSON of kexlab wifi protect.
type protectOutput struct {
	Model    lwc.Model            `json:"model"`
	Platform string               `json:"platform"`
	MCU      *wifiMCUInfo         `json:"mcu,omitempty"`
	Rows     []airtime.ProtectRow `json:"rows"`
}

// protectHeads are the column heads of the data-protection ops.
var protectHeads = map[string]string{
	airtime.OpPerm: "permutation", airtime.OpAE0: "AE 128 B, AD 0", airtime.OpAE16: "AE 128 B, AD 16 B", airtime.OpHash: "ACE-Hash 128 B",
}

// cmdWifiProtect is the talk's data-protection table.
func cmdWifiProtect(args []string, stdout, stderr io.Writer) error {
	fs := newFlags("wifi protect", stderr)
	link := fs.String("link", "54Mbps", "link of the protected frame: a rate with its unit, or the preset sdr-16.82k (as for wifi handshake)")
	n := fs.Int("n", 200, "x86: samples per operation, 2 to 1000000 (each a batch of calls of at least 20µs)")
	lf := addLinkFlags(fs)
	pf := addPlatformFlags(fs)
	jsonOut := fs.String("json", "", "also write the table as JSON to this file")
	if err := parse(fs, args); err != nil {
		return err
	}
	if *n < 2 || *n > 1_000_000 {
		return fmt.Errorf("%w: -n %d out of range (2 to 1000000)", errUsage, *n)
	}
	models, err := lf.models(fs, []string{*link}, "-link")
	if err != nil {
		return err
	}
	model := models[0]
	meas, info, err := pf.load()
	if err != nil {
		return err
	}
	out := protectOutput{Model: model, Platform: *pf.platform, MCU: info}
	if meas != nil {
		if out.Rows, err = airtime.PlatformProtect(meas, model); err != nil {
			return err
		}
	} else {
		for _, c := range lwc.Ciphers() {
			r, err := airtime.MeasureProtect(c, *n, model)
			if err != nil {
				return err
			}
			out.Rows = append(out.Rows, r)
		}
	}
	printProtect(stdout, out)
	if *jsonOut != "" {
		return writeJSONFile(*jsonOut, out)
	}
	return nil
}

func printProtect(w io.Writer, out protectOutput) {
	if out.MCU != nil {
		out.MCU.printHeader(w, out.Platform)
	}
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	head := []string{"cipher", "source"}
	if out.MCU == nil {
		head = append(head, "n")
	}
	for _, op := range airtime.ProtectOps {
		head = append(head, protectHeads[op])
	}
	head = append(head, "link", "frame (octets)", "Tx")
	fmt.Fprintln(tw, strings.Join(head, "\t")+"\t")
	for _, r := range out.Rows {
		cells := []string{r.Cipher, r.Source}
		if out.MCU == nil {
			cells = append(cells, fmt.Sprint(r.Summary[airtime.OpPerm].N))
		}
		for _, op := range airtime.ProtectOps {
			t, ok := r.Time[op]
			switch {
			case !ok:
				cells = append(cells, "—")
			case out.MCU != nil:
				cells = append(cells, fmt.Sprintf("%d cycles, %s", r.Cycles[op], msec(t)))
			default:
				cells = append(cells, fmt.Sprintf("%s [IQR %s]", dur(float64(t)), dur(r.Summary[op].IQR)))
			}
		}
		cells = append(cells, r.Link, fmt.Sprint(r.FrameOctets), durFine(r.Tx))
		fmt.Fprintln(tw, strings.Join(cells, "\t")+"\t")
	}
	tw.Flush()
	if out.MCU == nil {
		fmt.Fprintln(w, "measured here: medians of n samples, each the mean time of a batch of calls lasting at least 20µs (batch sizes in -json); the AE includes the key setup.")
	} else {
		fmt.Fprintf(w, "%s: time = cycles / clock (perm_cycles, ae128_ad0_cycles, ae128_ad16_cycles, hash_cycles); — not measured.\n", out.Platform)
	}
	link := out.Model.Label()
	if rate := lwc.FormatRate(out.Model.LinkBps); rate != link {
		link += " at " + rate
	}
	fmt.Fprintf(w, "model: the protected frame is %d octets of message, %d of associated data and a %d-octet tag (%d octets), plus %d octets of framing and %v per frame on %s; — where the cipher has no such operation\n",
		airtime.MsgOctet, airtime.ADOctets, lwc.TagSize, airtime.ProtectedFrameOctets, out.Model.FrameOverhead, out.Model.PerFrame, link)
}

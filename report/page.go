package report

// pageHTML is the report template: one self-contained page, no scripts.
const pageHTML = `<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<title>kexlab comparison report</title>
<style>
body { font-family: sans-serif; margin: 2em; max-width: 80em; color: #222; }
table { border-collapse: collapse; margin: 1em 0; font-size: 90%; }
th, td { border: 1px solid #ccc; padding: 0.2em 0.5em; text-align: right; }
th { background: #f3f3f3; }
td.l, th.l { text-align: left; }
.summary td, .significance td, .across td { white-space: nowrap; }
.better { color: #006d2c; } .worse { color: #b30000; }
figure { margin: 1.5em 0; }
.note { color: #555; }
.energy { font-weight: bold; }
</style>
</head>
<body>
<h1>kexlab comparison report</h1>
<p class="note">Generated {{.Generated}}.{{if .Runs}} {{len .Runs}} run(s). Times are wall-clock per operation; intervals are the distribution-free 95% confidence intervals of the median (order statistics; the coverage actually achieved is given). Statistics use the samples kept by the seed study's outlier rule (samples above 10 × the mean dropped; the number dropped is in each run's outlier table, with the Tukey-fence counts beside it).{{end}}</p>
{{if .Runs}}{{range .Runs}}<p class="energy" id="energy-{{.Label}}"><span style="color:{{.Color}}">■</span> {{.Label}}: {{.Energy}}</p>
{{end}}<p class="note">RAPL energy is that of the whole CPU package during each sample, other processes included, with a resolution of about 1 ms: it is meaningful only on an otherwise idle machine.</p>
{{end}}{{with .Findings}}<h2 id="findings">The study's findings, checked here</h2>
<p class="note">Each finding of the Android PAKE study, tested on this run's samples of the two rows named (A against B, both from the same interleaved run): the ratio A/B is the Hodges–Lehmann estimate on the logarithms (the median ratio over all pairs) with its distribution-free interval; p is the two-sided Mann–Whitney test, Holm-adjusted over the run's findings (α = 0.05); δ is Cliff's delta of A against B. A difference counts when it is significant and its interval excludes differences under 5 % both ways (back-to-back runs on a shared machine move ratios by a few percent). A verdict compares the direction the study reported; the study's magnitudes are beside it.</p>
{{range .}}<table class="findings" id="findings-{{.Label}}">
<tr><th class="l">finding ({{.Label}})</th><th class="l">study</th><th class="l">A</th><th class="l">B</th><th class="l">measure</th><th>n A / B</th><th>A/B</th><th>interval</th><th>p</th><th>p (Holm)</th><th>δ</th><th class="l">verdict</th></tr>
{{range .Rows}}<tr><td class="l">{{.Claim}}</td><td class="l">{{.Study}}</td><td class="l">{{.A}}</td><td class="l">{{.B}}</td><td class="l">{{.Metric}}</td>{{if .NA}}<td>{{.NA}} / {{.NB}}</td><td>{{printf "%.2f" .Ratio}}</td><td>[{{printf "%.2f" .Lo}}, {{printf "%.2f" .Hi}}] ({{pct .Level}})</td><td>{{p .P}}</td><td>{{p .PAdj}}</td><td>{{delta .Delta}}</td>{{else}}<td>-</td><td>-</td><td>-</td><td>-</td><td>-</td><td>-</td>{{end}}<td class="l"><b>{{.Verdict}}</b>{{with .Why}}: {{.}}{{end}}</td></tr>
{{end}}</table>
{{end}}{{with $.FindingsAgree}}<p class="note" id="findings-agree">Two runs: {{.}}.</p>{{end}}
{{end}}{{with .Figures}}<h2 id="figures">Figures</h2>
<p class="note">Each figure names its profile. Profile study: exactly the configurations of the Android PAKE study's primitives table (OEKE and aPAKE-PQC without password stretching, SPAKE2 with HKDF and no memory-hard function, Dragonfly constant time and with the INSECURE early exit, SRP with SHA-1 and SHA-256, …), several unsafe to deploy. Profile recommended: kexlab's hardened configurations (scrypt or PBKDF2 wherever the password meets the wire, constant-time mapping, SHA-256). Schemes in both profiles are measured once and appear in both.</p>
{{range .}}<figure>{{.}}</figure>
{{end}}{{end}}
{{with .Load}}<h2 id="load">Service load (kexlab load)</h2>
<p class="note">Logins against a running kexlab serve. Closed loop: c clients back to back (the peak). Open loop: logins due at the offered rate, latency counted from when each was due (no coordinated omission). Latency of successful logins (HdrHistogram).</p>
{{template "loadtable" .}}{{end}}
{{range .Study}}<h2 id="service-study">Service study (kexlab load-study)</h2>
<p class="note">The Heterogeneous-PAKE study's service experiments against kexlab serve -study on {{.Machine.CPUModel}} ({{.Machine.Cores}} cores, {{.Machine.Time}}): {{.Shape}}. Per core: successful logins per second of the service process's CPU time. Primitive limit: the server-side group operations, KEM calls or hash of one login alone, median [Q1, Q3] of timed rounds on CPU time. Targets: per-core rate ≥ 80 % of the limit; p99 at 70 % of the peak ≤ 3 × the unloaded median. bcrypt and Argon2id logins send the password (a baseline only).</p>
<table class="study">
<tr><th class="l">scheme</th><th class="l">kind</th><th>peak</th><th>per core at the peak: median [min, max]</th><th>server CPU per login beyond the limit</th><th>primitive limit per login → per core</th><th>% of limit</th><th class="l">≥ 80 %</th><th>unloaded p50</th><th>p99 at 70 % of peak</th><th>ratio</th><th class="l">≤ 3×</th></tr>
{{range .Schemes}}<tr><td class="l">{{.Scheme}}</td><td class="l">{{.Kind}}</td><td>{{.Peak}}</td><td>{{.PerCore}}</td><td>{{.Over}}</td><td>{{.Limit}}</td><td>{{.Pct}}</td><td class="l">{{.PctVerdict}}</td><td>{{.P50}}</td><td>{{.P99}}</td><td>{{.Ratio}}</td><td class="l">{{.RatioVerdict}}</td></tr>
{{end}}</table>
{{with .Seed}}<h3>Beside the study's peaks (its abstract and Table 7: i9-7900X, 10 cores, with a Titan V)</h3>
<table class="seed">
<tr><th class="l">scheme</th><th>study, operations/s</th><th>here, logins/s</th><th>here, per core</th><th>here, per core × 10</th><th class="l">what differs</th></tr>
{{range .}}<tr><td class="l">{{.Scheme}}</td><td>{{.Seed}}</td><td>{{.Ours}}</td><td>{{.PerCore}}</td><td>{{.OursCores}}</td><td class="l">{{.Note}}</td></tr>
{{end}}</table>{{end}}
{{with .Dispatch}}<h3>Dispatcher delay against batch size: the fitted model (its Table 6)</h3>
<table class="dispatch">
<tr><th class="l">scheme</th><th class="l">backend</th><th>T (batch latency)</th><th>k (per task, wall)</th><th>primitive limit (CPU)</th><th>k − limit</th><th>R²</th><th>batches per size</th><th class="l">threshold t = ⌈T/k⌉</th></tr>
{{range .}}<tr><td class="l">{{.Scheme}}</td><td class="l">{{.Backend}}</td><td>{{.T}}</td><td>{{.K}}</td><td>{{.Limit}}</td><td>{{.Over}}</td><td>{{.R2}}</td><td>{{.Reps}}</td><td class="l">{{.Threshold}}</td></tr>
{{end}}</table>{{end}}
{{range .Figures}}<figure>{{.}}</figure>
{{end}}<details><summary>Every load point</summary>
{{template "loadtable" .Points}}</details>
{{end}}{{range .Soak}}<h2 id="wg-soak">WireGuard PSK rotator: cost over time (kexlab wg bench -soak{{with .Label}}, {{.}}{{end}})</h2>
<p class="note">On {{.Machine.CPUModel}} ({{.Machine.Cores}} cores, Linux {{.Machine.Kernel}}, {{.Machine.Time}}): {{.Shape}}. Each combination ran in two network namespaces joined by a veth pair, a userspace WireGuard device (wireguard-go) and a <code>kexlab wg run</code> daemon in each, both with the same mode and key; WireGuard re-keys about every two minutes (the keepalive is the traffic), and the daemons rotate the PSK after each handshake. The idle WireGuard is a second pair of devices with the same keepalive and no daemon, sampled at the same instants. Per hour, per process: the rate over the whole window (the cost), then the median [min–max] of the per-interval rates; n = processes (both sides) × intervals. CPU: user + system time of all threads (the process CPU clock). Wakeups: voluntary + involuntary context switches of all threads. The device beside a daemon also serves the daemon's reads of it (one per poll interval); added per host = daemon + (device beside it − idle device), over the window.</p>
<table class="soak">
<tr><th class="l">mode</th><th class="l">key source</th><th>handshakes</th><th>warm-up</th><th>n</th><th>daemon CPU s/h</th><th>daemon wakeups/h</th><th>daemon RSS</th><th>WireGuard beside it: CPU s/h</th><th>wakeups/h</th><th>idle WireGuard: CPU s/h</th><th>wakeups/h</th><th>added per host: CPU s/h</th><th>wakeups/h</th></tr>
{{range .Rows}}<tr><td class="l">{{.Mode}}</td><td class="l" title="{{.SourceName}}">{{.Source}}</td><td>{{.Handshakes}}</td><td>{{.Warmup}}</td><td>{{.N}}</td><td>{{.DaemonCPU}}</td><td>{{.DaemonWake}}</td><td>{{.DaemonRSS}}</td><td>{{.DeviceCPU}}</td><td>{{.DeviceWake}}</td><td>{{.IdleCPU}}</td><td>{{.IdleWake}}</td><td>{{.AddedCPU}}</td><td>{{.AddedWake}}</td></tr>
{{end}}</table>
{{end}}{{with .Across}}<h2 id="across">Across runs</h2>
<p class="note">Each scheme of a later run against the same scheme in the first run ({{(index . 0).Baseline}}): two-sided Mann–Whitney U test, all comparisons one Holm family, α = 0.05; Cliff's δ negative means the later run is faster.</p>
<table class="across">
<tr><th class="l">scheme</th><th class="l">run</th><th>median</th><th>median in {{(index . 0).Baseline}}</th><th>shift</th><th>Cliff's δ</th><th>p</th><th>p (Holm)</th><th class="l">verdict</th></tr>
{{range .}}<tr><td class="l">{{.Scheme}}</td><td class="l">{{.Run}}</td><td>{{ns .MedA}}</td><td>{{ns .MedB}}</td><td>{{ns .ShiftNs}}</td><td>{{delta .Delta}}</td><td>{{p .P}}</td><td>{{p .PAdj}}</td><td class="l">{{if .Err}}{{.Err}}{{else if eq (verdict .Verdict) "A faster"}}faster{{else if eq (verdict .Verdict) "A slower"}}slower{{else}}{{verdict .Verdict}}{{end}}</td></tr>
{{end}}</table>{{end}}
{{with .Agree}}<h2 id="agreement">Do the runs agree?</h2>
<p class="note">For every pair of schemes that the first run calls significantly different (Mann–Whitney, Holm, α = 0.05), the verdict of each later run on the same pair.</p>
<table class="agreement">
<tr><th class="l">run</th><th class="l">against</th><th>significant pairs</th><th>same verdict</th><th>reversed</th><th>not significant</th><th>missing</th><th class="l">reversed pairs</th></tr>
{{range .}}<tr><td class="l">{{.Run}}</td><td class="l">{{.Baseline}}</td><td>{{.Significant}}</td><td>{{.Same}}</td><td>{{.Reversed}}</td><td>{{.NotSignificant}}</td><td>{{.Missing}}</td><td class="l">{{range $i, $r := .Reversals}}{{if $i}}, {{end}}{{$r}}{{end}}</td></tr>
{{end}}</table>{{end}}
{{range .Runs}}
<h2 id="run-{{.Label}}">Run: {{.Label}}</h2>
<h3>Machine</h3>
<table class="machine">
<tr><th class="l">source</th><td class="l">{{.Results.Source}}</td></tr>
<tr><th class="l">CPU</th><td class="l">{{.Machine.CPUModel}}</td></tr>
<tr><th class="l">cores{{if .Machine.GOMAXPROCS}} / GOMAXPROCS{{end}}</th><td class="l">{{if .Machine.Cores}}{{.Machine.Cores}}{{else}}not recorded{{end}}{{if .Machine.GOMAXPROCS}} / {{.Machine.GOMAXPROCS}}{{end}}</td></tr>
<tr><th class="l">runtime</th><td class="l">{{.Machine.GoVersion}} {{.Machine.OS}}/{{.Machine.Arch}}</td></tr>
<tr><th class="l">kernel</th><td class="l">{{.Machine.Kernel}}</td></tr>
<tr><th class="l">governor</th><td class="l">{{with .Machine.Governor}}{{.}}{{else}}not readable{{end}}</td></tr>
<tr><th class="l">load average</th><td class="l">{{with .Machine.LoadAvg}}{{.}}{{else}}not recorded{{end}}</td></tr>
<tr><th class="l">time</th><td class="l">{{.Machine.Time}}</td></tr>
<tr><th class="l">CPU clock</th><td class="l">{{with .Results.CPUClock}}{{.}}{{else}}not measured{{end}}</td></tr>
<tr><th class="l">settings</th><td class="l">n ≤ {{.Results.Settings.N}}, n ≥ {{.Results.Settings.MinN}}, warm-up {{.Results.Settings.Warmup}}, budget {{nsi .Results.Settings.BudgetNs}}, seed {{.Results.Settings.Seed}}{{with .Results.Settings.Profile}}, profile {{.}}{{end}}</td></tr>
<tr><th class="l">CPU flags</th><td class="l" style="font-size:80%">{{join .Machine.CPUFlags " "}}</td></tr>
</table>
<h3>Summary (sorted by median time)</h3>
<table class="summary">
<tr><th class="l">scheme</th><th class="l">op</th><th>n</th><th>median</th><th>IQR</th><th>CV</th><th>95% CI of median</th><th>CPU median</th><th>allocs</th><th>heap bytes</th><th>wire bytes (std / study)</th><th>energy median (µJ) [95% CI]</th><th class="l">wire check</th></tr>
{{range .Rows}}{{if .Err}}<tr><td class="l">{{.Scheme}}</td><td class="l">{{.Op}}</td><td colspan="11" class="l">{{.Err}}</td></tr>
{{else}}<tr><td class="l">{{.Scheme}}</td><td class="l">{{.Op}}</td><td>{{.Wall.N}}</td><td>{{ns .Wall.Median}}</td><td>{{ns .Wall.IQR}}</td><td>{{pct .Wall.CV}}</td><td>[{{ns .Wall.MedianCI.Low}}, {{ns .Wall.MedianCI.High}}] ({{pct .Wall.MedianCI.Level}})</td><td>{{with .CPU}}{{ns .Median}}{{else}}–{{end}}</td>{{if .HeapMeasured}}<td>{{num .Allocs}}</td><td>{{bytes .Bytes}}</td>{{else}}<td>–</td><td>–</td>{{end}}<td>{{if .Size}}{{.Size}} / {{.StudySize}}{{else}}–{{end}}</td><td>{{with .Energy}}{{num .Median}} [{{num .MedianCI.Low}}, {{num .MedianCI.High}}]{{else}}not measured{{end}}</td><td class="l">{{.WireCheck}}</td></tr>
{{end}}{{end}}</table>
{{with .PeerTests}}<h3>Against independent implementations (measured in this run)</h3>
<p class="note">Each peer scheme was sampled by its driver process in the same seeded, interleaved order as kexlab's schemes. kexlab/peer is the Hodges–Lehmann ratio on the logarithms with its interval; p is the two-sided Mann–Whitney test, Holm-adjusted over this table (α = 0.05); δ is Cliff's delta of kexlab against the peer (negative: kexlab faster). What differs is said per row: a ratio compares implementations only as far as their configurations agree.</p>
<table class="peers">
<tr><th class="l">kexlab</th><th class="l">peer</th><th class="l">measure</th><th>n</th><th>kexlab/peer</th><th>interval</th><th>p</th><th>p (Holm)</th><th>δ</th><th class="l">verdict</th><th class="l">what differs</th></tr>
{{range .}}<tr><td class="l">{{.Kexlab}}</td><td class="l">{{.Peer}}</td><td class="l">{{.Metric}}</td>{{if .NA}}<td>{{.NA}} / {{.NB}}</td><td>{{printf "%.2f" .Ratio}}</td><td>[{{printf "%.2f" .Lo}}, {{printf "%.2f" .Hi}}] ({{pct .Level}})</td><td>{{p .P}}</td><td>{{p .PAdj}}</td><td>{{delta .Delta}}</td>{{else}}<td>-</td><td>-</td><td>-</td><td>-</td><td>-</td><td>-</td>{{end}}<td class="l">{{.Verdict}}</td><td class="l">{{.Differs}}</td></tr>
{{end}}</table>{{end}}
{{with .Limits}}<h3>Primitive limit</h3>
<p class="note">Each exchange against the operations any implementation of the scheme has to perform (group operations, exponentiations, KEM calls, and for a full exchange the password processing), timed in the same interleaved run beside it, before it in one iteration and after it in the next. The ratio is the median of the paired ratios exchange / floor on {{(index . 0).Metric}} of the measuring thread, with the 95% CI of that median; what exceeds 1 is everything else (encodings, hashes, key schedule, allocation).</p>
<table class="limits">
<tr><th class="l">scheme</th><th class="l">op</th><th>n</th><th>exchange median</th><th>floor median</th><th>ratio</th><th>95% CI of ratio</th><th class="l">unavoidable operations</th></tr>
{{range .}}<tr><td class="l">{{.Scheme}}</td><td class="l">{{.Op}} / {{.FloorOp}}</td>{{if .Err}}<td colspan="5" class="l">{{.Err}}</td>{{else}}<td>{{.Ratio.N}}</td><td>{{ns .Exchange}}</td><td>{{ns .Floor}}</td><td>{{printf "%.2f" .Ratio.Median}}</td><td>[{{printf "%.2f" .Ratio.MedianCI.Low}}, {{printf "%.2f" .Ratio.MedianCI.High}}]</td>{{end}}<td class="l">{{.Ops}}</td></tr>
{{end}}</table>{{end}}
<h3>Outliers (10 × mean: dropped from the statistics; Tukey fences: counted only)</h3>
<table class="outliers">
<tr><th class="l">scheme</th><th class="l">op</th><th>n kept</th><th>dropped: &gt; 10 × mean (seed S0 rule)</th><th>Tukey 1.5 IQR</th><th>Tukey 3 IQR</th></tr>
{{range .Rows}}{{if not .Err}}<tr><td class="l">{{.Scheme}}</td><td class="l">{{.Op}}</td><td>{{.Wall.N}}</td><td>{{.Out10x}}</td><td>{{.OutTukey15}}</td><td>{{.OutTukey3}}</td></tr>
{{end}}{{end}}</table>
<h3>Pairwise significance (full exchange, wall time)</h3>
<p class="note">Two-sided Mann–Whitney U test for every pair (in kexlab wifi runs, every pair of the same operation: KDF with KDF, MIC with MIC, MIC-talk with MIC-talk, handshake with handshake); the p-values of all pairs of this run are adjusted together by Holm's method; α = 0.05. Cliff's delta δ of A relative to B: negative means A tends to be faster. Hodges–Lehmann shift is the median of the differences A − B.</p>
<table class="significance">
<tr><th class="l">A</th><th class="l">B</th><th>median A</th><th>median B</th><th>shift A − B</th><th>Cliff's δ</th><th>p</th><th>p (Holm)</th><th class="l">verdict</th></tr>
{{range .Pairs}}<tr><td class="l">{{.A}}</td><td class="l">{{.B}}</td><td>{{ns .MedA}}</td><td>{{ns .MedB}}</td><td>{{ns .ShiftNs}}</td><td>{{delta .Delta}}</td><td>{{p .P}}</td><td>{{p .PAdj}}</td><td class="l {{if eq (verdict .Verdict) "A faster"}}better{{else if eq (verdict .Verdict) "A slower"}}worse{{end}}">{{if .Err}}{{.Err}}{{else}}{{verdict .Verdict}}{{end}}</td></tr>
{{else}}<tr><td colspan="9" class="l">fewer than two schemes with samples</td></tr>
{{end}}</table>
{{with .Wire}}<h3>Bytes on the wire</h3>
<table class="wire">
<tr><th class="l">scheme</th><th class="l">messages: standard / study accounting (length seen on the wire)</th><th>total</th><th>study total</th><th class="l">check</th></tr>
{{range .}}<tr><td class="l">{{.Scheme}}</td><td class="l">{{.Messages}}</td><td>{{.Size}}</td><td>{{.StudySize}}</td><td class="l">{{.Check}}</td></tr>
{{end}}</table>{{end}}
{{with .Phases}}<h3>Where a browser login's time goes (median [Q1, Q3] per login)</h3>
<p>Each login as the sign-in page runs it in this browser against <code>kexlab serve -server-timing</code>: browser = the page's work before, between and after the rounds (the key stretching in its Web Worker included); network = each request's time less the server's; web server = the handler less the scheme's work; PAKE server = the scheme's work and its wait for a worker (the Server-Timing header). Summed over the login's rounds.</p>
<table class="phases">
<tr><th class="l">scheme</th><th>n</th><th>login</th><th>browser</th><th>network</th><th>web server</th><th>PAKE server</th></tr>
{{range .}}<tr><td class="l">{{.Scheme}}</td><td>{{.N}}</td><td>{{.Total}}</td>{{range .Parts}}<td>{{.}}</td>{{end}}</tr>
{{end}}</table>
<table class="steps">
<tr><th class="l">scheme</th><th class="l">each phase by round (median)</th></tr>
{{range .}}<tr><td class="l">{{.Scheme}}</td><td class="l">{{.Rounds}}</td></tr>
{{end}}</table>{{end}}
{{with .Steps}}<h3>Phases of a full exchange (median per step)</h3>
<table class="steps">
<tr><th class="l">scheme</th><th class="l">steps (party, message produced, median time)</th></tr>
{{range .}}<tr><td class="l">{{.Scheme}}</td><td class="l">{{.Steps}}</td></tr>
{{end}}</table>{{end}}
{{end}}
</body>
</html>
{{define "loadtable"}}<table class="load">
<tr><th class="l">scheme</th><th class="l">loop</th><th>clients</th><th>offered</th><th>throughput</th><th>n</th><th>p50</th><th>p90</th><th>p99</th><th>p99.9</th><th>max</th><th class="l">errors</th></tr>
{{range .}}<tr><td class="l">{{.Scheme}}</td><td class="l">{{.Loop}}</td><td>{{.Concurrency}}</td><td>{{.Offered}}</td><td>{{.Throughput}}</td><td>{{.N}}</td><td>{{.P50}}</td><td>{{.P90}}</td><td>{{.P99}}</td><td>{{.P999}}</td><td>{{.Max}}</td><td class="l">{{.Errors}}</td></tr>
{{end}}</table>{{end}}
`

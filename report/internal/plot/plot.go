// Package plot draws the figures of the kexlab reports as inline SVG (no
// scripts, no external assets): dot plots of medians with their intervals
// and log–log scatter plots, coloured by run.
package plot

import (
	"fmt"
	"math"
	"strings"
)

// palette colours the runs of a merged report (colour-blind safe, Okabe–Ito).
var palette = []string{"#0072B2", "#D55E00", "#009E73", "#CC79A7", "#E69F00", "#56B4E9", "#000000"}

// Color is the colour of run number run (from 0) in figures and legends.
func Color(run int) string { return palette[run%len(palette)] }

var xmlEscaper = strings.NewReplacer("&", "&amp;", "<", "&lt;", ">", "&gt;", `"`, "&quot;", "'", "&#39;")

// esc escapes text for SVG/HTML content and attribute values.
func esc(s string) string { return xmlEscaper.Replace(s) }

// logScale maps [lo, hi] (positive) onto [a, b] logarithmically.
type logScale struct{ lo, hi, a, b float64 }

func newLogScale(lo, hi, a, b float64) logScale {
	// Finite positive bounds within 1e±300, so that the padding and the
	// tick loop stay finite whatever the data.
	if !(lo > 0) || math.IsInf(lo, 0) {
		lo = 1
	}
	lo = min(max(lo, 1e-300), 1e300)
	if !(hi > lo) || math.IsInf(hi, 0) {
		hi = lo * 10
	}
	hi = min(hi, 1e300)
	// Pad to whole 1-2-5 steps so the extreme marks are not on the frame.
	return logScale{lo: lo / 1.25, hi: hi * 1.25, a: a, b: b}
}

func (s logScale) at(v float64) float64 {
	if !(v > 0) {
		v = s.lo
	}
	t := (math.Log10(v) - math.Log10(s.lo)) / (math.Log10(s.hi) - math.Log10(s.lo))
	return s.a + t*(s.b-s.a)
}

// ticks returns 1-2-5 ticks inside the scale, at most about eight.
func (s logScale) ticks() []float64 {
	var out []float64
	for _, step := range [][]float64{{1, 2, 5}, {1, 3}, {1}} {
		out = out[:0]
		for e := math.Floor(math.Log10(s.lo)); e <= math.Ceil(math.Log10(s.hi)); e++ {
			for _, m := range step {
				v := m * math.Pow(10, e)
				if v >= s.lo && v <= s.hi {
					out = append(out, v)
				}
			}
		}
		if len(out) <= 8 {
			break
		}
	}
	return out
}

// Dot is one row of a dot plot: a median with its interval.
type Dot struct {
	Key      string // what dots of different runs share (the scheme)
	Label    string
	Run      int
	Mid      float64
	Lo, Hi   float64
	Coverage float64
}

// Dots draws medians as dots with interval bars on a log axis, one row
// per dot.
func Dots(title, axis string, dots []Dot, format func(float64) string) string {
	const w, left, right, rowH, top = 760.0, 230.0, 20.0, 20.0, 34.0
	h := top + rowH*float64(len(dots)) + 40
	lo, hi := math.Inf(1), math.Inf(-1)
	for _, d := range dots {
		lo, hi = math.Min(lo, math.Min(d.Lo, d.Mid)), math.Max(hi, math.Max(d.Hi, d.Mid))
	}
	sc := newLogScale(lo, hi, left, w-right)
	var b strings.Builder
	fmt.Fprintf(&b, `<svg xmlns="http://www.w3.org/2000/svg" role="img" width="%g" height="%g" viewBox="0 0 %g %g" font-family="sans-serif" font-size="12">`, w, h, w, h)
	fmt.Fprintf(&b, `<title>%s</title><text x="%g" y="18" font-weight="bold">%s</text>`, esc(title), 4.0, esc(title))
	bottom := top + rowH*float64(len(dots))
	for _, t := range sc.ticks() {
		x := sc.at(t)
		fmt.Fprintf(&b, `<line x1="%.1f" y1="%g" x2="%.1f" y2="%g" stroke="#ddd"/>`, x, top-6, x, bottom)
		fmt.Fprintf(&b, `<text x="%.1f" y="%g" text-anchor="middle">%s</text>`, x, bottom+14, esc(format(t)))
	}
	fmt.Fprintf(&b, `<text x="%g" y="%g" text-anchor="middle">%s</text>`, (left+w-right)/2, bottom+32, esc(axis))
	for i, d := range dots {
		y := top + rowH*float64(i) + rowH/2
		c := Color(d.Run)
		fmt.Fprintf(&b, `<g><title>%s: median %s, %.1f%% interval [%s, %s]</title>`,
			esc(d.Label), esc(format(d.Mid)), 100*d.Coverage, esc(format(d.Lo)), esc(format(d.Hi)))
		fmt.Fprintf(&b, `<text x="%g" y="%.1f" text-anchor="end" dominant-baseline="middle">%s</text>`, left-8, y, esc(shorten(d.Label, 34)))
		fmt.Fprintf(&b, `<line x1="%.1f" y1="%.1f" x2="%.1f" y2="%.1f" stroke="%s" stroke-width="2"/>`, sc.at(d.Lo), y, sc.at(d.Hi), y, c)
		for _, e := range []float64{d.Lo, d.Hi} {
			fmt.Fprintf(&b, `<line x1="%.1f" y1="%.1f" x2="%.1f" y2="%.1f" stroke="%s"/>`, sc.at(e), y-4, sc.at(e), y+4, c)
		}
		fmt.Fprintf(&b, `<circle cx="%.1f" cy="%.1f" r="4" fill="%s"/></g>`, sc.at(d.Mid), y, c)
	}
	b.WriteString(`</svg>`)
	return b.String()
}

// shorten cuts s to at most n runes, marking the cut with an ellipsis; the
// full text stays in the mark's title.
func shorten(s string, n int) string {
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	return string(r[:n-1]) + "…"
}

// Point is one mark of a scatter plot.
type Point struct {
	Label string
	Run   int
	X, Y  float64
	Open  bool // hollow marker (the study accounting)
}

// axes is a log–log frame of a figure: the scales and the SVG drawn so far.
type axes struct {
	b      strings.Builder
	sx, sy logScale
	fx, fy func(float64) string
}

const figW, figH, figLeft, figRight, figTop, figBottom = 760.0, 420.0, 80.0, 120.0, 34.0, 50.0

// newAxes opens a figure whose axes cover the points xs, ys.
func newAxes(title, xAxis, yAxis string, xs, ys []float64, fx, fy func(float64) string) *axes {
	const w, h, left, right, top, bottom = figW, figH, figLeft, figRight, figTop, figBottom
	xlo, xhi, ylo, yhi := math.Inf(1), math.Inf(-1), math.Inf(1), math.Inf(-1)
	for _, x := range xs {
		xlo, xhi = math.Min(xlo, x), math.Max(xhi, x)
	}
	for _, y := range ys {
		ylo, yhi = math.Min(ylo, y), math.Max(yhi, y)
	}
	a := &axes{sx: newLogScale(xlo, xhi, left, w-right), sy: newLogScale(ylo, yhi, h-bottom, top), fx: fx, fy: fy}
	b := &a.b
	fmt.Fprintf(b, `<svg xmlns="http://www.w3.org/2000/svg" role="img" width="%g" height="%g" viewBox="0 0 %g %g" font-family="sans-serif" font-size="12">`, w, h, w, h)
	fmt.Fprintf(b, `<title>%s</title><text x="4" y="18" font-weight="bold">%s</text>`, esc(title), esc(title))
	fmt.Fprintf(b, `<rect x="%g" y="%g" width="%g" height="%g" fill="none" stroke="#999"/>`, left, top, w-right-left, h-bottom-top)
	for _, t := range a.sx.ticks() {
		x := a.sx.at(t)
		fmt.Fprintf(b, `<line x1="%.1f" y1="%g" x2="%.1f" y2="%g" stroke="#eee"/><text x="%.1f" y="%g" text-anchor="middle">%s</text>`,
			x, top, x, h-bottom, x, h-bottom+14, esc(fx(t)))
	}
	for _, t := range a.sy.ticks() {
		y := a.sy.at(t)
		fmt.Fprintf(b, `<line x1="%g" y1="%.1f" x2="%g" y2="%.1f" stroke="#eee"/><text x="%g" y="%.1f" text-anchor="end" dominant-baseline="middle">%s</text>`,
			left, y, w-right, y, left-4, y, esc(fy(t)))
	}
	fmt.Fprintf(b, `<text x="%g" y="%g" text-anchor="middle">%s</text>`, (left+w-right)/2, h-12, esc(xAxis))
	fmt.Fprintf(b, `<text x="14" y="%g" text-anchor="middle" transform="rotate(-90 14 %g)">%s</text>`, (top+h-bottom)/2, (top+h-bottom)/2, esc(yAxis))
	return a
}

// mark draws one point, its label as a tooltip and, if text, beside it
// (a hollow one's in grey, below the point, so that it does not sit on
// the filled mark's label of the same scheme).
func (a *axes) mark(label string, x, y float64, color string, open, text bool) {
	px, py := a.sx.at(x), a.sy.at(y)
	fill := color
	if open {
		fill = "white"
	}
	fmt.Fprintf(&a.b, `<g><title>%s: %s, %s</title><circle cx="%.1f" cy="%.1f" r="4" fill="%s" stroke="%s"/>`,
		esc(label), esc(a.fx(x)), esc(a.fy(y)), px, py, fill, color)
	switch {
	case text && open:
		fmt.Fprintf(&a.b, `<text x="%.1f" y="%.1f" font-size="9" fill="#777">%s</text>`, px+6, py+12, esc(label))
	case text:
		fmt.Fprintf(&a.b, `<text x="%.1f" y="%.1f" font-size="10">%s</text>`, px+6, py-4, esc(label))
	}
	a.b.WriteString(`</g>`)
}

func (a *axes) close() string {
	a.b.WriteString(`</svg>`)
	return a.b.String()
}

// Scatter draws points on log–log axes, each labelled.
func Scatter(title, xAxis, yAxis string, pts []Point, fx, fy func(float64) string) string {
	var xs, ys []float64
	for _, p := range pts {
		xs, ys = append(xs, p.X), append(ys, p.Y)
	}
	a := newAxes(title, xAxis, yAxis, xs, ys, fx, fy)
	for _, p := range pts {
		a.mark(p.Label, p.X, p.Y, Color(p.Run), p.Open, true)
	}
	return a.close()
}

// Series is one line of a line plot: its points in order of X.
type Series struct {
	Label  string
	Color  int // palette index
	X, Y   []float64
	Dashed bool // a fitted or modelled line, drawn without marks
}

// Lines draws series on log–log axes, each labelled at its last point.
func Lines(title, xAxis, yAxis string, series []Series, fx, fy func(float64) string) string {
	var xs, ys []float64
	for _, s := range series {
		xs, ys = append(xs, s.X...), append(ys, s.Y...)
	}
	a := newAxes(title, xAxis, yAxis, xs, ys, fx, fy)
	for _, s := range series {
		n := min(len(s.X), len(s.Y))
		if n == 0 {
			continue
		}
		var path strings.Builder
		for i := range n {
			fmt.Fprintf(&path, "%.1f,%.1f ", a.sx.at(s.X[i]), a.sy.at(s.Y[i]))
		}
		dash := ""
		if s.Dashed {
			dash = ` stroke-dasharray="4 3"`
		}
		fmt.Fprintf(&a.b, `<polyline points="%s" fill="none" stroke="%s" stroke-width="1.5"%s><title>%s</title></polyline>`,
			strings.TrimSpace(path.String()), Color(s.Color), dash, esc(s.Label))
		if !s.Dashed {
			for i := range n {
				a.mark(s.Label, s.X[i], s.Y[i], Color(s.Color), false, i == n-1)
			}
		}
	}
	return a.close()
}

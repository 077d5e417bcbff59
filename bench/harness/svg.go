package main

import (
	"fmt"
	"html"
	"math"
	"strings"
)

type point struct{ x, y float64 }

type series struct {
	name string
	pts  []point
}

// chart is a line chart written as a standalone SVG file.
type chart struct {
	file, title, xlabel, ylabel string
	logX                        bool
	series                      []series
}

var palette = []string{"#1f77b4", "#d62728", "#2ca02c", "#ff7f0e", "#9467bd", "#8c564b", "#e377c2", "#7f7f7f"}

// svg renders c: axes with ticks, one polyline with markers per series, a
// legend. A chart without points renders its frame and says so.
func (c chart) svg() string {
	const w, h, left, right, top, bottom = 760.0, 420.0, 70.0, 230.0, 40.0, 50.0
	pw, ph := w-left-right, h-top-bottom
	xmin, xmax, ymax := math.Inf(1), math.Inf(-1), 0.0
	n := 0
	for _, s := range c.series {
		for _, p := range s.pts {
			if c.logX && p.x <= 0 {
				continue
			}
			xmin, xmax, ymax = math.Min(xmin, p.x), math.Max(xmax, p.x), math.Max(ymax, p.y)
			n++
		}
	}
	var b strings.Builder
	fmt.Fprintf(&b, `<svg xmlns="http://www.w3.org/2000/svg" width="%g" height="%g" viewBox="0 0 %g %g" font-family="sans-serif" font-size="12">`+"\n", w, h, w, h)
	fmt.Fprintf(&b, `<rect width="%g" height="%g" fill="white"/>`+"\n", w, h)
	fmt.Fprintf(&b, `<text x="%g" y="22" font-size="15" font-weight="bold">%s</text>`+"\n", left, html.EscapeString(c.title))
	fmt.Fprintf(&b, `<rect x="%g" y="%g" width="%g" height="%g" fill="none" stroke="#444"/>`+"\n", left, top, pw, ph)
	if n == 0 {
		fmt.Fprintf(&b, `<text x="%g" y="%g">no data</text>`+"\n</svg>\n", left+pw/2-20, top+ph/2)
		return b.String()
	}
	tx := func(x float64) float64 { return x }
	if c.logX {
		tx = math.Log2
	}
	x0, x1 := tx(xmin), tx(xmax)
	if x1 == x0 {
		x0, x1 = x0-1, x1+1
	}
	ymax = niceCeil(ymax)
	px := func(x float64) float64 { return left + (tx(x)-x0)/(x1-x0)*pw }
	py := func(y float64) float64 { return top + ph - y/ymax*ph }
	// y ticks: five intervals.
	for i := 0; i <= 5; i++ {
		y := ymax * float64(i) / 5
		fmt.Fprintf(&b, `<line x1="%g" y1="%.1f" x2="%g" y2="%.1f" stroke="#ddd"/>`, left, py(y), left+pw, py(y))
		fmt.Fprintf(&b, `<text x="%g" y="%.1f" text-anchor="end">%s</text>`+"\n", left-6, py(y)+4, tick(y))
	}
	// x ticks: every distinct x of the data.
	seen := map[float64]bool{}
	for _, s := range c.series {
		for _, p := range s.pts {
			if seen[p.x] || (c.logX && p.x <= 0) {
				continue
			}
			seen[p.x] = true
			fmt.Fprintf(&b, `<line x1="%.1f" y1="%g" x2="%.1f" y2="%g" stroke="#444"/>`, px(p.x), top+ph, px(p.x), top+ph+4)
			fmt.Fprintf(&b, `<text x="%.1f" y="%g" text-anchor="middle">%s</text>`+"\n", px(p.x), top+ph+18, xTick(p.x, c.xlabel))
		}
	}
	fmt.Fprintf(&b, `<text x="%g" y="%g" text-anchor="middle">%s</text>`+"\n", left+pw/2, h-8, html.EscapeString(c.xlabel))
	fmt.Fprintf(&b, `<text transform="translate(16 %g) rotate(-90)" text-anchor="middle">%s</text>`+"\n", top+ph/2, html.EscapeString(c.ylabel))
	for i, s := range c.series {
		col := palette[i%len(palette)]
		var pts []string
		for _, p := range s.pts {
			if c.logX && p.x <= 0 {
				continue
			}
			pts = append(pts, fmt.Sprintf("%.1f,%.1f", px(p.x), py(p.y)))
		}
		fmt.Fprintf(&b, `<polyline fill="none" stroke="%s" stroke-width="2" points="%s"><title>%s</title></polyline>`+"\n", col, strings.Join(pts, " "), html.EscapeString(s.name))
		for _, p := range pts {
			xy := strings.Split(p, ",")
			fmt.Fprintf(&b, `<circle cx="%s" cy="%s" r="3" fill="%s"/>`, xy[0], xy[1], col)
		}
		ly := top + 10 + float64(i)*18
		fmt.Fprintf(&b, "\n"+`<line x1="%g" y1="%g" x2="%g" y2="%g" stroke="%s" stroke-width="2"/>`, left+pw+14, ly, left+pw+34, ly, col)
		fmt.Fprintf(&b, `<text x="%g" y="%g">%s</text>`+"\n", left+pw+40, ly+4, html.EscapeString(s.name))
	}
	b.WriteString("</svg>\n")
	return b.String()
}

// niceCeil rounds v up to 1, 2 or 5 times a power of ten.
func niceCeil(v float64) float64 {
	if v <= 0 {
		return 1
	}
	p := math.Pow(10, math.Floor(math.Log10(v)))
	for _, m := range []float64{1, 2, 5, 10} {
		if m*p >= v {
			return m * p
		}
	}
	return 10 * p
}

func tick(v float64) string {
	if v == math.Trunc(v) {
		return fmt.Sprintf("%.0f", v)
	}
	return fmt.Sprintf("%.2g", v)
}

// xTick writes sizes in bytes with binary units.
func xTick(x float64, label string) string {
	if strings.Contains(label, "bytes") && x >= 1024 && x == math.Trunc(x) {
		return human(int64(x))
	}
	return tick(x)
}

package main

import (
	"fmt"
	"io"
	"math"
	"text/tabwriter"
)

// ScalingRow says how one index's figures grow with the number of vectors.
type ScalingRow struct {
	Data  string `json:"data"`
	Index string `json:"index"`
	Dim   int    `json:"dim"`
	// Search p50 and memory per vector, from the smallest to the largest size.
	FromN       int     `json:"from_n"`
	ToN         int     `json:"to_n"`
	P50x        float64 `json:"p50_factor"`
	P50Growth   string  `json:"p50_growth"`
	BytesX      float64 `json:"bytes_per_vector_factor,omitempty"`
	BytesGrowth string  `json:"bytes_per_vector_growth,omitempty"`
	// BytesComputed says the bytes per vector compared are computed
	// estimates, not measurements (see RetrievalResult.Computed).
	BytesComputed bool `json:"bytes_per_vector_computed,omitempty"`
	// Build time, over the widest range of sizes built with the same
	// parameters (efConstruction).
	BuildFromN   int     `json:"build_from_n,omitempty"`
	BuildToN     int     `json:"build_to_n,omitempty"`
	BuildX       float64 `json:"build_factor,omitempty"`
	BuildGrowth  string  `json:"build_growth,omitempty"`
	ReopenX      float64 `json:"reopen_factor,omitempty"`
	ReopenGrowth string  `json:"reopen_growth,omitempty"`
}

// growth names the model of n that explains a factor observed from n = a
// to n = b, among constant, log n, sqrt n, n, n log n and n^2: the model
// within 1.5x of the factor, else "between" the two it falls between (or
// the nearest, outside them all). The exponent e of n^e follows.
func growth(factor float64, a, b int) string {
	if factor <= 0 || a <= 0 || b <= a {
		return "-"
	}
	r := float64(b) / float64(a)
	l := math.Log(float64(b)) / math.Log(float64(a))
	models := []struct {
		name string
		f    float64
	}{{"constant", 1}, {"log", l}, {"sqrt", math.Sqrt(r)}, {"linear", r}, {"n log n", r * l}, {"quadratic", r * r}}
	e := math.Log(factor) / math.Log(r)
	name := ""
	for i, m := range models {
		if math.Abs(math.Log(factor/m.f)) <= math.Log(1.5) {
			name = m.name
			break
		}
		if i+1 < len(models) && factor > m.f && factor < models[i+1].f {
			name = "between " + m.name + " and " + models[i+1].name
		}
	}
	if name == "" {
		name = models[0].name
		if factor > 1 {
			name = models[len(models)-1].name + " or worse"
		}
	}
	return fmt.Sprintf("%s (n^%.2f)", name, e)
}

// scaling compares, per data set, index and dimension, the smallest and
// the largest size measured (rows built with the default number of
// workers only).
func scaling(rs []RetrievalResult, workers int) []ScalingRow {
	type key struct {
		data, idx string
		dim       int
	}
	groups := map[key][]RetrievalResult{}
	var order []key
	for _, r := range rs {
		if r.Workers != 0 && r.Workers != workers {
			continue
		}
		k := key{r.Data, r.Index, r.Dim}
		if _, ok := groups[k]; !ok {
			order = append(order, k)
		}
		groups[k] = append(groups[k], r)
	}
	var out []ScalingRow
	for _, k := range order {
		g := groups[k]
		if len(g) < 2 {
			continue
		}
		a, b := g[0], g[len(g)-1]
		for _, r := range g {
			if r.N < a.N {
				a = r
			}
			if r.N > b.N {
				b = r
			}
		}
		if a.N == b.N {
			continue
		}
		s := ScalingRow{Data: k.data, Index: k.idx, Dim: k.dim, FromN: a.N, ToN: b.N, P50x: b.P50us / a.P50us}
		s.P50Growth = growth(s.P50x, a.N, b.N)
		if a.BytesPerVec > 0 && b.BytesPerVec > 0 {
			s.BytesX = b.BytesPerVec / a.BytesPerVec
			s.BytesGrowth = growth(s.BytesX, a.N, b.N)
			s.BytesComputed = a.isComputed("bytes_per_vector") || b.isComputed("bytes_per_vector")
		}
		// Build: the widest range with one efConstruction.
		var ba, bb RetrievalResult
		for _, x := range g {
			for _, y := range g {
				if x.EfC == y.EfC && y.N > x.N && (bb.N == 0 || float64(y.N)/float64(x.N) > float64(bb.N)/float64(ba.N)) {
					ba, bb = x, y
				}
			}
		}
		if bb.N > 0 {
			s.BuildFromN, s.BuildToN, s.BuildX = ba.N, bb.N, bb.BuildSeconds/max(ba.BuildSeconds, 1e-9)
			s.BuildGrowth = growth(s.BuildX, ba.N, bb.N)
		}
		// Reopen: the smallest and the largest size that measured it.
		var ra, rb RetrievalResult
		for _, x := range g {
			if x.ReopenSecs > 0 {
				if ra.N == 0 || x.N < ra.N {
					ra = x
				}
				if x.N > rb.N {
					rb = x
				}
			}
		}
		if rb.N > ra.N {
			s.ReopenX = rb.ReopenSecs / ra.ReopenSecs
			s.ReopenGrowth = growth(s.ReopenX, ra.N, rb.N)
		}
		out = append(out, s)
	}
	return out
}

func printScaling(w io.Writer, rs []ScalingRow) {
	fmt.Fprintln(w, "\nScaling: how each figure grows with n, named after constant, log, sqrt, linear, n log n or quadratic when within 1.5x")
	fmt.Fprintln(w, "(search p50 and memory per vector from the smallest to the largest size; build time over the widest range built")
	fmt.Fprintln(w, "with one efConstruction; reopen time over the sizes that measured it; * from computed B/vector estimates)")
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "data\tindex\tdim\tsizes\tsearch p50\tB/vector\tbuild sizes\tbuild time\treopen")
	for _, s := range rs {
		bytes, build, reopen := "-", "-", "-"
		if s.BytesGrowth != "" {
			bytes = fmt.Sprintf("x%.2f %s", s.BytesX, s.BytesGrowth)
			if s.BytesComputed {
				bytes += " *"
			}
		}
		if s.BuildGrowth != "" {
			build = fmt.Sprintf("x%.1f %s", s.BuildX, s.BuildGrowth)
		}
		if s.ReopenGrowth != "" {
			reopen = fmt.Sprintf("x%.1f %s", s.ReopenX, s.ReopenGrowth)
		}
		buildSizes := "-"
		if s.BuildToN > 0 {
			buildSizes = fmt.Sprintf("%s -> %s", short(s.BuildFromN), short(s.BuildToN))
		}
		fmt.Fprintf(tw, "%s\t%s\t%d\t%s -> %s\tx%.2f %s\t%s\t%s\t%s\t%s\n", s.Data, s.Index, s.Dim, short(s.FromN), short(s.ToN),
			s.P50x, s.P50Growth, bytes, buildSizes, build, reopen)
	}
	tw.Flush()
}

// short writes 10000 as 10k and 1000000 as 1M.
func short(n int) string {
	switch {
	case n >= 1_000_000 && n%1_000_000 == 0:
		return fmt.Sprintf("%dM", n/1_000_000)
	case n >= 1000 && n%1000 == 0:
		return fmt.Sprintf("%dk", n/1000)
	}
	return fmt.Sprint(n)
}

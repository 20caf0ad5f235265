package main

import (
	"strings"
	"testing"
)

// The medians table sums up each setting's rounds and divides the loaded
// median by the quiet key's p99 alone pooled over every row.
func TestFairnessMedians(t *testing.T) {
	row := func(adm string, alone, loaded, rps float64) FairnessResult {
		return FairnessResult{MaxConcurrent: 512, Admission: adm, FloodRPS: rps,
			QuietAlone: LoadFigures{P99ms: alone}, QuietLoaded: LoadFigures{P99ms: loaded}, P99Ratio: loaded / alone, Flood503: 1}
	}
	rs := []FairnessResult{row("fixed", 4, 200, 3000), row("adaptive", 6, 20, 3100), row("fixed", 8, 100, 2000), row("adaptive", 10, 30, 4000)}
	var b strings.Builder
	printFairnessMedians(&b, rs)
	out := b.String()
	for _, want := range []string{
		"pooled over all 4 rows: 7.00 [4.00-10.00] ms",
		"150.0 [100.0-200.0]", "21.43", // fixed: loaded median 150 over pooled 7
		"25.0 [20.0-30.0]", "3.57", // adaptive
		"3550 [3100-4000]",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("medians table lacks %q:\n%s", want, out)
		}
	}
	b.Reset()
	printFairnessMedians(&b, rs[:2])
	if b.Len() != 0 {
		t.Errorf("one round printed medians:\n%s", b.String())
	}
}

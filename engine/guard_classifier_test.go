package engine

import "testing"

func TestClassifierScore(t *testing.T) {
	for reply, want := range map[string]float64{"0.93": 0.93, " 0.2\n": 0.2, "Score: 0.75": 0.75, "unsafe\nS1": 1, "safe": 0, "1": 1, "7": 1, "no idea": 0, "": 0} {
		if got := classifierScore(reply); got != want {
			t.Errorf("%q: %v, want %v", reply, got, want)
		}
	}
}

package memory

import (
	"runtime"
	"testing"
)

func TestDefaultWorkers(t *testing.T) {
	s := newTestService(t, nil)
	if want := max(2, runtime.GOMAXPROCS(0)); s.Workers() != want || DefaultWorkers() != want {
		t.Fatalf("workers %d, default %d, want %d", s.Workers(), DefaultWorkers(), want)
	}
	if s := newTestService(t, func(c *Config) { c.Workers = 1 }); s.Workers() != 1 {
		t.Fatalf("workers set to 1: %d", s.Workers())
	}
}

package memory

import "runtime"

// DefaultWorkers is the ingestion worker pool's default size: one worker
// per CPU the Go runtime uses, at least 2. Workers parse, chunk and embed
// in parallel; their index writes on one memory are grouped by the index,
// so more workers than CPUs adds little. Each node of a cluster runs its
// own pool over the shared job queue.
func DefaultWorkers() int { return max(2, runtime.GOMAXPROCS(0)) }

// Workers is the size of the ingestion worker pool this service runs.
func (s *Service) Workers() int { return s.cfg.Workers }

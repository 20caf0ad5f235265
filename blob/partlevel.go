package blob

import "github.com/klauspost/compress/zstd"

// PartLevel is the zstd level of stored blob parts (uploaded documents):
// the fastest, since storing uploads was 6 % of ingestion's CPU time and
// SpeedDefault took a third more time per MB (6.1 against 4.5 ms/MB on
// generated markdown) for 7 % fewer bytes (a ratio of 0.332 against
// 0.357; measured on HTTP ingestion, docs/bench-log/2026-12-04.md). Parts
// are whole zstd frames, read whatever level wrote them, so parts written
// before at SpeedDefault read unchanged and an older Hearth reads these.
const PartLevel = zstd.SpeedFastest

package index

import "github.com/hearth-dev/hearth/engine"

// Sizes sums Stats over every loaded memory, for the metrics gauges.
func (m *Manager) Sizes() engine.IndexSizes {
	var s engine.IndexSizes
	for _, ms := range m.Stats() {
		s.Memories++
		s.Vectors += ms.Vectors
		s.Tombstones += ms.Tombstones
		s.Bytes += ms.Bytes
		s.SnapshotBytes += ms.SnapshotBytes
		s.KeywordDocs += ms.KeywordDocs
	}
	return s
}

package memory

import "github.com/hearth-dev/hearth/engine/chunk"

// chunkSettings returns the chunk settings of a document version: its
// upload's, else its memory's (nil: size/overlap chunking).
func chunkSettings(m *Memory, v *Version) *chunk.Settings {
	if v != nil && v.Chunking != nil {
		return v.Chunking
	}
	return m.Chunking
}

// chunkDocument cuts a version's text as its chunk settings say
// (docs/memories-and-retrieval.md#structure-aware-chunking) and returns the
// chunk texts with their records. Size/overlap chunking, the default, is
// chunk.Split as it always was. In parent-child mode the first child of each
// parent holds the parent's text, and every child names that chunk.
func chunkDocument(m *Memory, doc *Document, j *Job, text string, overlap int) ([]string, []chunkRecord) {
	set := chunkSettings(m, &doc.Current)
	var texts []string
	var recs []chunkRecord
	switch {
	case !set.Structured():
		texts = chunk.Split(text, m.ChunkSize, overlap)
		recs = make([]chunkRecord, len(texts))
		for i, t := range texts {
			recs[i] = chunkRecord{Doc: j.Document, Text: t}
		}
	case set.ParentSize() == 0:
		for _, p := range chunk.Structure(text, m.ChunkSize, overlap) {
			texts = append(texts, p.Text)
			recs = append(recs, chunkRecord{Doc: j.Document, Text: p.Text, Heading: p.Heading})
		}
	default:
		children, parents := chunk.StructureParents(text, m.ChunkSize, overlap, set.ParentSize())
		holder := make([]int, len(parents))
		for i := range holder {
			holder[i] = -1
		}
		for n, p := range children {
			r := chunkRecord{Doc: j.Document, Text: p.Text, Heading: p.Heading}
			if holder[p.Parent] < 0 {
				holder[p.Parent] = n
				r.Parent = parents[p.Parent]
			}
			r.ParentChunk = chunkID(j.Version, holder[p.Parent])
			texts = append(texts, p.Text)
			recs = append(recs, r)
		}
	}
	return texts, recs
}

// recordBytes sums the bytes of the chunk texts and parents of recs, what
// the storage quota counts.
func recordBytes(recs []chunkRecord) int64 {
	var n int64
	for _, r := range recs {
		n += int64(len(r.Text) + len(r.Parent))
	}
	return n
}

func pickRecords(recs []chunkRecord, idx []int) []chunkRecord {
	out := make([]chunkRecord, len(idx))
	for i, n := range idx {
		out[i] = recs[n]
	}
	return out
}

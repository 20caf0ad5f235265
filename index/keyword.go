package index

import (
	"context"
	"encoding/binary"
	"errors"
	"os"

	"github.com/blevesearch/bleve/v2"
	_ "github.com/blevesearch/bleve/v2/analysis/analyzer/standard" // registers "standard"
	"github.com/blevesearch/bleve/v2/analysis/lang/en"             // registers "en"
	"github.com/blevesearch/bleve/v2/index/scorch"
	"github.com/blevesearch/bleve/v2/mapping"
	bleveindex "github.com/blevesearch/bleve_index_api"

	"github.com/hearth-dev/hearth/engine"
)

// keywordField is the one indexed field of a chunk document.
const keywordField = "text"

// keywordIndex is the Bleve index of one memory: a scorch index on disk
// (BM25 scoring is only honoured by scorch indexes, never by NewMemOnly),
// one document per chunk keyed by chunk id, text indexed but not stored.
type keywordIndex struct {
	idx bleve.Index
	eng *englishAnalysis // nil: documents go through Bleve's mapping
}

type keywordDoc struct {
	Text string `json:"text"`
}

// keywordMapping indexes only the text field with the given analyzer and
// scores with BM25 (k1 = 1.2, b = 0.75). A new index asked for "en" gets
// hearth_en, which makes the same terms faster (see fastUnicode); indexes
// made before keep "en", and either reads the other's terms.
func keywordMapping(analyzer string) mapping.IndexMapping {
	if analyzer == en.AnalyzerName {
		analyzer = fastEnglishAnalyzer
	}
	f := bleve.NewTextFieldMapping()
	f.Analyzer = analyzer
	f.Store = false
	f.IncludeTermVectors = false
	f.IncludeInAll = false
	f.DocValues = false
	dm := bleve.NewDocumentStaticMapping()
	dm.AddFieldMappingsAt(keywordField, f)
	im := bleve.NewIndexMapping()
	im.DefaultMapping = dm
	im.DefaultAnalyzer = analyzer
	im.ScoringModel = bleveindex.BM25Scoring
	im.StoreDynamic = false
	im.IndexDynamic = false
	im.DocValuesDynamic = false
	return im
}

// openKeyword opens the index in dir; when it does not exist it is created
// if create is set, else openKeyword returns nil, nil.
func openKeyword(dir, analyzer string, create bool) (*keywordIndex, error) {
	if _, err := os.Stat(dir); err == nil {
		idx, err := bleve.Open(dir)
		if err != nil {
			return nil, err
		}
		return &keywordIndex{idx: idx, eng: englishFor(idx)}, nil
	} else if !errors.Is(err, os.ErrNotExist) {
		return nil, err
	}
	if !create {
		return nil, nil
	}
	idx, err := bleve.NewUsing(dir, keywordMapping(analyzer), scorch.Name, scorch.Name, nil)
	if err != nil {
		return nil, err
	}
	return &keywordIndex{idx: idx, eng: englishFor(idx)}, nil
}

// keywordSeqKey is the Bleve internal key holding the keyword sequence
// number of the last change applied (see kwSeqKey): it is written in the
// same batch as the change, so it is persisted together with it or not at
// all.
var keywordSeqKey = []byte("hearth.kwseq")

// nodeSeqKey is the Bleve internal key holding, in cluster mode, the
// memory's sequence number (idx/<m>/seq) of the last change this node's
// index applied. Each node compares it with its own position, never with
// the store's kwseq, so nodes do not rebuild each other's indexes.
var nodeSeqKey = []byte("hearth.nodeseq")

// apply indexes the chunks with text and deletes the ids in del, in one
// batch; seq, when not 0, is recorded as the batch's sequence number.
func (k *keywordIndex) apply(put []engine.IndexedChunk, del []string, seq uint64) error {
	return k.applyAt(put, del, keywordSeqKey, seq)
}

// applyAt is apply recording seq under key; recording nodeSeqKey also
// deletes keywordSeqKey, whose meaning the cluster mode does not keep.
func (k *keywordIndex) applyAt(put []engine.IndexedChunk, del []string, key []byte, seq uint64) error {
	b := k.idx.NewBatch()
	for _, c := range put {
		var err error
		if k.eng != nil && c.ID != "" {
			err = b.IndexAdvanced(k.eng.document(c.ID, c.Text))
		} else {
			err = b.Index(c.ID, keywordDoc{Text: c.Text})
		}
		if err != nil {
			return err
		}
	}
	for _, id := range del {
		b.Delete(id)
	}
	if seq != 0 {
		b.SetInternal(key, encodeU64(seq))
		if string(key) == string(nodeSeqKey) {
			b.DeleteInternal(keywordSeqKey)
		}
	}
	if b.Size() == 0 {
		return nil
	}
	return k.idx.Batch(b)
}

// seq returns the sequence number of the last batch applied; ok is false
// when none was recorded (an index written before sequence numbers existed,
// or one whose rebuild did not finish).
func (k *keywordIndex) seq() (seq uint64, ok bool, err error) {
	return k.seqAt(keywordSeqKey)
}

// seqAt returns the sequence number recorded under key.
func (k *keywordIndex) seqAt(key []byte) (seq uint64, ok bool, err error) {
	b, err := k.idx.GetInternal(key)
	if err != nil || len(b) != 8 {
		return 0, false, err
	}
	return binary.LittleEndian.Uint64(b), true, nil
}

// search runs a match (OR) query on the text and returns BM25 hits, best
// first. With allow it pages through results until k allowed hits are found.
func (k *keywordIndex) search(ctx context.Context, query string, n int, allow func(string) bool) ([]engine.ChunkHit, error) {
	if n <= 0 {
		return nil, nil
	}
	q := bleve.NewMatchQuery(query)
	q.SetField(keywordField)
	size := n
	if allow != nil {
		size = max(4*n, 64)
	}
	var out []engine.ChunkHit
	for from := 0; ; {
		req := bleve.NewSearchRequestOptions(q, size, from, false)
		res, err := k.idx.SearchInContext(ctx, req)
		if err != nil {
			return nil, err
		}
		for _, h := range res.Hits {
			if allow == nil || allow(h.ID) {
				out = append(out, engine.ChunkHit{ID: h.ID, Score: h.Score})
				if len(out) == n {
					return out, nil
				}
			}
		}
		if len(res.Hits) < size {
			return out, nil
		}
		from += size
		size = min(size*2, 10000)
	}
}

func (k *keywordIndex) count() uint64 {
	n, _ := k.idx.DocCount()
	return n
}

func (k *keywordIndex) close() error { return k.idx.Close() }

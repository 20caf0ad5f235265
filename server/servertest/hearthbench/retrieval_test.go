package main

import (
	"bytes"
	"slices"
	"strings"
	"testing"

	"github.com/hearth-dev/hearth/index"
)

// TestRetrievalRowsSayWhatIsMeasured: the exact row's recall is marked
// computed and its bytes per vector measured (more than the raw vectors:
// the ids' slots count too); hearth-hnsw's bytes per vector is marked
// computed; a reopen that loaded the snapshot is reported, and the table
// marks computed figures.
func TestRetrievalRowsSayWhatIsMeasured(t *testing.T) {
	const n, dim = 2000, 32
	rows, _, err := runRetrieval(retrievalCase{Data: "synthetic", N: n, Dim: dim, Reopen: true}, 20, t.Logf)
	if err != nil {
		t.Fatal(err)
	}
	if len(rows) != 2 {
		t.Fatalf("rows %+v", rows)
	}
	exact, hnsw := rows[0], rows[1]
	if exact.Index != "exact" || !slices.Equal(exact.Computed, []string{"recall_at_10"}) {
		t.Errorf("exact row %+v: want only its recall marked computed", exact)
	}
	if exact.BytesPerVec <= dim*4 || exact.BytesPerVec > dim*4*4 {
		t.Errorf("exact row: %.1f bytes per vector; want the measured heap, above the %d bytes of a vector", exact.BytesPerVec, dim*4)
	}
	if hnsw.Index != "hearth-hnsw" || !slices.Equal(hnsw.Computed, []string{"bytes_per_vector"}) || hnsw.BytesPerVec <= 0 {
		t.Errorf("hearth-hnsw row %+v: want its bytes per vector marked computed", hnsw)
	}
	if hnsw.ReopenSecs <= 0 || hnsw.ReopenNote != "" {
		t.Errorf("hearth-hnsw row: reopen %v s, note %q; want a reopen from the snapshot reported", hnsw.ReopenSecs, hnsw.ReopenNote)
	}
	var out bytes.Buffer
	printRetrieval(&out, &Report{Retrieval: rows})
	if !strings.Contains(out.String(), "1.000*") || !strings.Contains(out.String(), "* exact's recall@10 is 1 by definition") {
		t.Errorf("the table does not mark computed figures:\n%s", out.String())
	}
}

func TestReopenFigure(t *testing.T) {
	cases := []struct {
		info index.LoadInfo
		want float64
	}{
		{index.LoadInfo{FromSnapshot: true}, 1.5},
		{index.LoadInfo{FromSnapshot: false, Replayed: 2000}, 0},
		{index.LoadInfo{FromSnapshot: true, Replayed: 3}, 0},
		{index.LoadInfo{FromSnapshot: true, Removed: 1}, 0},
	}
	for _, c := range cases {
		got, note := reopenFigure(c.info, 1.5)
		if got != c.want || (got == 0) != (note != "") {
			t.Errorf("reopenFigure(%+v) = %v, %q; want %v and a note exactly when it is not reported", c.info, got, note, c.want)
		}
	}
}

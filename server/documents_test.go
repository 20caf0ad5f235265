package server_test

import (
	"strings"
	"testing"

	"github.com/hearth-dev/hearth/server/servertest"
)

func TestUploadIngestRetrieve(t *testing.T) {
	ts := servertest.Start(t)
	key := servertest.AdminKey
	createMemory(t, ts, key, map[string]any{"name": "kb", "embedding_model": hashModel, "chunk_size": 200, "chunk_overlap": 20})

	text := strings.Repeat("Hearth stores documents in Badger. ", 10) + "\n\n" +
		strings.Repeat("The ingestion workers embed chunks in batches. ", 10)
	upload(t, ts, key, "kb", "notes.txt", "text/plain", []byte(text), map[string]string{"team": "core"})
	d := waitCompleted(t, ts, key, "kb", "notes.txt")
	if d.Chunks < 2 || d.Metadata.Size != int64(len(text)) || d.Metadata.Type != "text/plain" || d.Meta["team"] != "core" ||
		!d.Enabled || d.ChunkSize != 200 || d.ChunkOverlap != 20 || d.OwnerLogin != "admin" || d.StatusMessage != nil {
		t.Fatalf("document: %+v", d)
	}
	res := retrieve(t, ts, key, map[string]any{"query": "ingestion workers batches", "memory": []map[string]any{{"name": "kb"}}, "topK": 3})
	if len(res) == 0 || !strings.Contains(res[0].Text, "ingestion workers") {
		t.Fatalf("retrieve: %+v", res)
	}
	if res[0].Meta["team"] != "core" || res[0].Meta["documentName"] != "notes.txt" || res[0].Meta["docName"] != "notes.txt" {
		t.Fatalf("meta: %+v", res[0].Meta)
	}
	for i := 1; i < len(res); i++ {
		if res[i].Similarity > res[i-1].Similarity {
			t.Fatalf("not ranked: %+v", res)
		}
	}
}

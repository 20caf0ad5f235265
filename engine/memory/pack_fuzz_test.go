package memory

import (
	"bytes"
	"testing"
)

// FuzzPackRecords: reading any bytes as the records of a pack ends with
// the end record or an error, never a panic or an endless loop. (The zstd
// layer is the library's; TestPackReaderRefusals and the server tests feed
// it broken streams.)
func FuzzPackRecords(f *testing.F) {
	pack := testPack(&testing.T{}, 1)
	pr, err := newPackReader(bytes.NewReader(pack))
	if err != nil {
		f.Fatal(err)
	}
	var content bytes.Buffer
	if _, err := content.ReadFrom(pr.r); err != nil {
		f.Fatal(err)
	}
	pr.close()
	f.Add(content.Bytes())
	f.Add(content.Bytes()[:content.Len()/2])
	f.Add([]byte("H\x02{}"))
	f.Fuzz(func(t *testing.T, data []byte) {
		pr := recordReader(bytes.NewReader(data))
		h, err := pr.header()
		if err != nil {
			return
		}
		for range len(data) + 1 {
			kind, body, err := pr.next()
			if err != nil || kind == recEnd {
				return
			}
			if kind == recChunk {
				decodeChunk(body, h.Dimension)
			}
		}
		t.Fatal("more records than bytes")
	})
}

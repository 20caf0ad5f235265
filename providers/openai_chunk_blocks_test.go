package providers

import (
	"encoding/json"
	"fmt"
	"reflect"
	"testing"
)

// TestDecodeChunkKeepsEarlierEvents: events decoded into a stream's
// blocks (chunkStrings) stay what encoding/json gives after many more
// events of the same stream were decoded, short texts (in the text block)
// and long ones (allocated alone) alike: no event's storage is reused.
func TestDecodeChunkKeepsEarlierEvents(t *testing.T) {
	var lines [][]byte
	for i := range 3 * chunkEventBlock {
		text := fmt.Sprintf("w%d ", i)
		if i%5 == 4 {
			text = fmt.Sprintf("%0*d", chunkTextBlock/2, i)
		}
		lines = append(lines, fmt.Appendf(nil, `{"id":"c1","object":"chat.completion.chunk","created":1,"model":"m","system_fingerprint":"fp","choices":[{"index":0,"delta":{"content":%q},"finish_reason":null}]}`, text))
	}
	lines = append(lines, recordedChunks(t)...)
	var cs chunkStrings
	got := make([]*oaiStreamEvent, len(lines))
	for i, line := range lines {
		got[i], _ = decodeChunk(line, &cs)
	}
	for i, line := range lines {
		want := new(oaiStreamEvent)
		if json.Unmarshal(line, want) != nil {
			if got[i] != nil {
				t.Fatalf("%s: decoded, encoding/json failed", line)
			}
			continue
		}
		if !reflect.DeepEqual(got[i], want) {
			t.Fatalf("event %d changed after later events:\n got %+v\nwant %+v", i, got[i], want)
		}
	}
}

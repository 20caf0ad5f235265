package agent

import (
	"context"
	"testing"
	"unsafe"

	"github.com/hearth-dev/hearth/engine"
)

// TestRecorderRunIDInItsIDBuf: an agent run's id is drawn into its
// recorder's id buffer (idBuf, by engine.NewRunIDIn), not a string of its
// own.
func TestRecorderRunIDInItsIDBuf(t *testing.T) {
	a := NewAgent(AgentOptions{RunLog: &engine.RunLog{}})
	var r runRecorder
	if a.recorder(context.Background(), &r, "owner", "openai:gpt-4o-mini", false) != &r || len(r.id) != 25 ||
		unsafe.StringData(r.id) != &r.idBuf[0] {
		t.Fatalf("run id %q not in the recorder's idBuf", r.id)
	}
}

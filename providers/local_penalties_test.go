package providers_test

import (
	"testing"

	"github.com/hearth-dev/hearth/providers/fake"
)

// Local servers (ollama, openai-compatible and extra providers) get a
// penalty only when it differs from a pipe's default 1; hosted providers
// get what the pipe holds (docs/providers.md#what-hearth-sends).
func TestLocalModelsSkipDefaultPenalties(t *testing.T) {
	f := fake.NewOpenAI()
	defer f.Close()
	for _, c := range []struct {
		provider           string
		presence, freq     float64
		wantPresence, want bool
	}{
		{"ollama", 1, 1, false, false},
		{"ollama", 0.4, 1, true, false},
		{"openai-compatible", 1, -0.5, false, true},
		{"my-vllm", 1, 1, false, false},
		{"openai", 1, 1, true, true},
	} {
		req := fullRequest("m")
		req.PresencePenalty, req.FrequencyPenalty = f64(c.presence), f64(c.freq)
		body := sentBody(t, c.provider, f, req)
		if _, ok := body["presence_penalty"]; ok != c.wantPresence {
			t.Errorf("%s presence %v: sent %v, want %v", c.provider, c.presence, ok, c.wantPresence)
		}
		if _, ok := body["frequency_penalty"]; ok != c.want {
			t.Errorf("%s frequency %v: sent %v, want %v", c.provider, c.freq, ok, c.want)
		}
	}
}

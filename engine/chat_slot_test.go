package engine

import "testing"

// TestChatModelSlot: through an instrumented registry the model's metrics
// wrapper is the slot's own and wraps the registry's model; without
// instrumentation the slot returns the registry's model.
func TestChatModelSlot(t *testing.T) {
	model := &nopChat{}
	ref := ModelRef{Provider: "openai", Model: "gpt-4o-mini"}
	var s ChatModelSlot
	p := InstrumentProviders(chatOnlyProviders{model: model}, NopMetrics{})
	cm, err := s.ChatModel(p, ref)
	if err != nil || cm != ChatModel(&s.ichat) || s.ichat.next != ChatModel(model) || s.ichat.ref != ref {
		t.Fatalf("ChatModel = %v, %v; wrapper %+v", cm, err, s.ichat)
	}
	if cm, err := s.ChatModel(chatOnlyProviders{model: model}, ref); err != nil || cm != ChatModel(model) {
		t.Fatalf("uninstrumented ChatModel = %v, %v", cm, err)
	}
}

// BenchmarkChatModelSlotAllocs: the metrics wrapper kept in the slot
// costs no allocation (Go 1.26).
func BenchmarkChatModelSlotAllocs(b *testing.B) {
	ref := ModelRef{Provider: "openai", Model: "gpt-4o-mini"}
	var s ChatModelSlot
	p := InstrumentProviders(chatOnlyProviders{model: &nopChat{}}, NopMetrics{})
	b.ReportAllocs()
	for b.Loop() {
		if _, err := s.ChatModel(p, ref); err != nil {
			b.Fatal(err)
		}
	}
}

package engine

import "testing"

// TestChatModelSlot: through an instrumented registry the model's metrics
// wrapper is the slot's own (no allocation) and wraps the registry's
// model; without instrumentation the slot returns the registry's model.
func TestChatModelSlot(t *testing.T) {
	model := &nopChat{}
	ref := ModelRef{Provider: "openai", Model: "gpt-4o-mini"}
	var s ChatModelSlot
	p := InstrumentProviders(chatOnlyProviders{model: model}, NopMetrics{})
	cm, err := s.ChatModel(p, ref)
	if err != nil || cm != ChatModel(&s.ichat) || s.ichat.next != ChatModel(model) || s.ichat.ref != ref {
		t.Fatalf("ChatModel = %v, %v; wrapper %+v", cm, err, s.ichat)
	}
	if n := testing.AllocsPerRun(100, func() { _, _ = s.ChatModel(p, ref) }); n != 0 {
		t.Fatalf("ChatModel allocates %.0f times, want 0", n)
	}
	if cm, err := s.ChatModel(chatOnlyProviders{model: model}, ref); err != nil || cm != ChatModel(model) {
		t.Fatalf("uninstrumented ChatModel = %v, %v", cm, err)
	}
}

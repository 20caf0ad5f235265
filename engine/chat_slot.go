package engine

// ChatModelSlot is storage for the metrics wrapper of one call's chat
// model, kept by the caller for as long as it uses the model (one run), so
// that resolving the model allocates no wrapper. It holds nothing shared:
// nothing changes with several Hearth nodes.
type ChatModelSlot struct {
	ichat instrumentedChat
}

// ChatModel resolves ref through p as p.ChatModel does. When p is the
// instrumented registry (InstrumentProviders), the wrapper it returns is
// the one inside s, so s must not be used for another model while the
// returned one is in use.
func (s *ChatModelSlot) ChatModel(p Providers, ref ModelRef) (ChatModel, error) {
	if ci, ok := p.(chatModelInto); ok {
		return ci.chatModelInto(ref, &s.ichat)
	}
	return p.ChatModel(ref)
}

package engine

// chatModelInto is implemented by the instrumented registry
// (InstrumentProviders): it wraps the model in dst, storage the caller
// keeps for the call's lifetime, instead of allocating a wrapper.
type chatModelInto interface {
	chatModelInto(ref ModelRef, dst *instrumentedChat) (ChatModel, error)
}

func (ip *instrumented) chatModelInto(ref ModelRef, dst *instrumentedChat) (ChatModel, error) {
	cm, err := ip.Providers.ChatModel(ref)
	if err != nil {
		return nil, err
	}
	*dst = instrumentedChat{next: cm, ref: ref, ip: ip}
	return dst, nil
}

// chatModel resolves the run's model: wrapped in the run's own
// instrumentation storage when the registry is instrumented, as
// Providers.ChatModel returns it otherwise.
func (pr *PreparedRun) chatModel() (ChatModel, error) {
	if ci, ok := pr.r.providers.(chatModelInto); ok {
		return ci.chatModelInto(pr.Ref, &pr.ichat)
	}
	return pr.r.providers.ChatModel(pr.Ref)
}

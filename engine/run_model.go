package engine

// ModelID is Ref.String(), "provider:model": the model that answered the
// run once Complete or Stream returned (a fallback model when the first
// failed), the pipe's model before. While Ref is the model prepare parsed,
// it is the pipe's own model string, so answering with it allocates
// nothing.
func (pr *PreparedRun) ModelID() string {
	if pr.Ref == pr.parsedRef && pr.modelID != "" {
		return pr.modelID
	}
	return pr.Ref.String()
}

// ModelIDOf returns ref.String(), reusing id when it already is that
// string: the model id a request named, when ParseModelID did not
// lower-case its provider and no fallback answered instead.
func ModelIDOf(ref ModelRef, id string) string {
	n := len(ref.Provider)
	if len(id) == n+1+len(ref.Model) && id[:n] == ref.Provider && id[n] == ':' && id[n+1:] == ref.Model {
		return id
	}
	return ref.String()
}

package server

import "net/http"

// The request headers of the run paths in Go's canonical form
// (textproto.CanonicalMIMEHeaderKey): Header.Get with a canonical name
// skips canonicalising it, which allocates a new string on every call for
// names like "LB-LLM-Key". net/http canonicalises incoming names, so the
// header is found however the client spelled it.
const (
	headerLLMKey         = "Lb-Llm-Key"         // LB-LLM-Key
	headerFallbackModels = "Lb-Fallback-Models" // HeaderFallbackModels
	headerThreadRequest  = "Lb-Thread-Id"       // HeaderThreadRequest
)

// llmKey is the caller's provider key header of a run.
func llmKey(h http.Header) string { return h.Get(headerLLMKey) }

// setRunHeaders sets the lb-thread-id (when the run has a thread) and
// lb-model answer headers under their lowercase names, as setHeader does,
// with one allocation for both.
func setRunHeaders(h http.Header, threadID, model string) {
	if threadID == "" {
		setHeader(h, HeaderModel, model)
		return
	}
	setRunHeadersIn(h, threadID, model, new([2]string))
}

// setRunHeadersIn is setRunHeaders with the values' storage in v, which
// the caller keeps for the request.
func setRunHeadersIn(h http.Header, threadID, model string, v *[2]string) {
	setThreadHeaderIn(h, threadID, v)
	setModelHeaderIn(h, model, v)
}

// setThreadHeaderIn sets lb-thread-id, when the run has a thread, with its
// value in v[0]; setModelHeaderIn sets lb-model with its value in v[1].
// Each value is a slice of len == cap 1, so an Add copies it instead of
// writing into the other.
func setThreadHeaderIn(h http.Header, threadID string, v *[2]string) {
	if threadID != "" {
		v[0] = threadID
		h[HeaderThreadID] = v[0:1:1]
	}
}

func setModelHeaderIn(h http.Header, model string, v *[2]string) {
	v[1] = model
	h[HeaderModel] = v[1:2:2]
}

package providers

import (
	"reflect"
	"testing"
)

// sourcesAsSearch is what an answer's web sources were before the
// hand-written path reported them: decoded whenever the answer holds
// either key anywhere.
func sourcesAsSearch(raw []byte) webSources {
	if mayNameSources(raw) {
		return decodeWebSources(raw)
	}
	return webSources{}
}

// sourcesOf is what decodeOpenAIResponse finds.
func sourcesOf(raw []byte) (webSources, bool) {
	_, sources, err := decodeChatResponseSources(raw)
	if err != nil {
		return webSources{}, false
	}
	if sources {
		return decodeWebSources(raw), true
	}
	return webSources{}, true
}

func checkSourcesAsSearch(t *testing.T, raw []byte) {
	t.Helper()
	got, ok := sourcesOf(raw)
	if !ok {
		return
	}
	if want := sourcesAsSearch(raw); !reflect.DeepEqual(got, want) {
		t.Errorf("%s: sources %+v, searching the answer gives %+v", raw, got, want)
	}
}

// TestChatResponseSourcesAsSearch: the web sources of an answer are the
// same whether the decoder reports the keys it met or the answer is
// searched for them (as before): recorded answers of every provider, and
// the keys nested, quoted in the content, spelt in another case, doubled
// or null.
func TestChatResponseSourcesAsSearch(t *testing.T) {
	docs := recordedResponses(t)
	for _, s := range []string{
		`{"id":"c","choices":[],"citations":["https://example.com/a"]}`,
		`{"id":"c","choices":[],"search_results":[{"title":"T","url":"https://example.com/b"}]}`,
		`{"id":"c","choices":[{"index":0,"message":{"role":"assistant","content":"say \"citations\" and \"search_results\""}}]}`,
		`{"id":"c","choices":[],"Citations":["https://example.com/a"]}`,
		`{"id":"c","choices":[],"SEARCH_RESULTS":[{"title":"T","url":"u"}],"x":"\"citations\""}`,
		`{"id":"c","choices":[],"citations":["a"],"citations":["b"]}`,
		`{"id":"c","choices":[],"citations":null}`,
		`{"id":"c","choices":[],"citations":5,"search_results":[{"title":"T","url":"u"}]}`,
		`{"id":"c","choices":[],"usage":{"prompt_tokens":1,"citations":["a"]}}`,
		`{"id":"c","choices":[],"extra":{"citations":["a"]}}`,
	} {
		docs = append(docs, []byte(s))
	}
	for _, raw := range docs {
		checkSourcesAsSearch(t, raw)
	}
	if got, _ := sourcesOf(docs[len(docs)-10]); len(got.Citations) != 1 {
		t.Fatalf("citations not found: %+v", got)
	}
}

func FuzzChatResponseSources(f *testing.F) {
	for _, line := range recordedResponses(f) {
		f.Add(line)
	}
	f.Add([]byte(`{"id":"c","choices":[],"citations":["https://example.com/a"]}`))
	f.Fuzz(func(t *testing.T, raw []byte) { checkSourcesAsSearch(t, raw) })
}

// BenchmarkChatResponseSources: decoding a plain answer and deciding
// whether to look for web sources, by the decoder's report and by
// searching the answer (as before).
func BenchmarkChatResponseSources(b *testing.B) {
	line := recordedResponses(b)[0]
	b.Run("decoder", func(b *testing.B) {
		for b.Loop() {
			decodeChatResponseSources(line)
		}
	})
	b.Run("search", func(b *testing.B) {
		for b.Loop() {
			decodeChatResponse(line)
			mayNameSources(line)
		}
	})
}

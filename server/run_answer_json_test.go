package server

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"reflect"
	"testing"

	"github.com/hearth-dev/hearth/engine"
	"github.com/labstack/echo/v4"
)

// recordedAnswers are the non-stream completions of the providers'
// recorded upstream answers (../providers/testdata/openai_responses.jsonl:
// OpenAI, DeepSeek, Groq, OpenRouter, Mistral, Perplexity and Gemini
// shapes and edge cases) that encoding/json decodes, as the adapters hand
// them on (no annotations as []), plus shapes the server builds: no
// choices, escapes, web annotations and logprobs.
func recordedAnswers(t testing.TB) []*engine.ChatResponse {
	out := recordedUpstream[engine.ChatResponse](t, "openai_responses.jsonl")
	for _, r := range out {
		for i := range r.Choices {
			if r.Choices[i].Message.Annotations == nil {
				r.Choices[i].Message.Annotations = []any{}
			}
		}
	}
	text, fp := "<b>caf\u00e9</b> & \u2028 \xff \"q\"\n", "fp_<1>"
	out = append(out,
		&engine.ChatResponse{ID: text, Object: "chat.completion", SystemFingerprint: &fp},
		&engine.ChatResponse{Choices: []engine.Choice{{Message: engine.ResponseMessage{Role: "assistant", Content: &text, Refusal: &text}, FinishReason: text}}},
		&engine.ChatResponse{Choices: []engine.Choice{{Message: engine.ResponseMessage{Annotations: []any{map[string]any{"type": "url_citation"}}}}}},
		&engine.ChatResponse{Choices: []engine.Choice{{Logprobs: map[string]any{"content": nil}}}},
	)
	return out
}

// answerShapes wraps r in every answer appendAnswer handles, and in some
// it does not.
func answerShapes(r *engine.ChatResponse) []any {
	out := "The answer is <42> & \u2029"
	comp := engine.Completion(r)
	raw := rawView{ID: r.ID, Object: r.Object, Created: r.Created, Model: r.Model, Provider: "openai",
		Choices: r.Choices, Usage: r.Usage, SystemFingerprint: r.SystemFingerprint}
	src := []sourceView{}
	withSources := &runResponse{Success: true, Completion: comp, Raw: raw, Sources: &src}
	withSources.Raw.Sources = &src
	return []any{
		r, (*engine.ChatResponse)(nil),
		&agentResponse{Output: &out, ChatResponse: r}, &agentResponse{ChatResponse: r}, &agentResponse{Output: &comp}, (*agentResponse)(nil),
		&runResponse{Success: true, Completion: comp, Raw: raw}, &runResponse{Raw: rawView{Provider: "<p>"}}, (*runResponse)(nil),
		withSources, map[string]any{"x": 1},
	}
}

// handledAnswer reports whether appendAnswer must take v: the run answers
// without sources whose choices have no logprobs and no annotations.
func handledAnswer(v any) bool {
	var choices []engine.Choice
	switch a := v.(type) {
	case *engine.ChatResponse:
		if a != nil {
			choices = a.Choices
		}
	case *agentResponse:
		if a != nil && a.ChatResponse != nil {
			choices = a.ChatResponse.Choices
		}
	case *runResponse:
		if a == nil {
			return true
		}
		if a.Sources != nil {
			return false
		}
		choices = a.Raw.Choices
	default:
		return false
	}
	for _, ch := range choices {
		if ch.Logprobs != nil || len(ch.Message.Annotations) > 0 {
			return false
		}
	}
	return true
}

// checkAnswerSameAsSerializer fails unless answerJSON writes what the
// server's serializer writes for v; it reports whether appendAnswer took v.
func checkAnswerSameAsSerializer(t *testing.T, v any) bool {
	t.Helper()
	e := echo.New()
	e.JSONSerializer = plainJSON{}
	want, got := httptest.NewRecorder(), httptest.NewRecorder()
	wantErr := plainJSON{}.Serialize(e.NewContext(httptest.NewRequest(http.MethodPost, "/v1/pipes/run", nil), want), v, "")
	err := answerJSON(e.NewContext(httptest.NewRequest(http.MethodPost, "/v1/pipes/run", nil), got), http.StatusOK, v)
	if (err != nil) != (wantErr != nil) {
		t.Fatalf("%#v: error %v, serializer %v", v, err, wantErr)
	}
	if got.Body.String() != want.Body.String() {
		t.Fatalf("%#v:\n got %s\nwant %s", v, got.Body, want.Body)
	}
	_, hand := appendAnswer(nil, v)
	return hand
}

func TestAnswersMatchSerializer(t *testing.T) {
	for i, r := range recordedAnswers(t) {
		for j, v := range answerShapes(r) {
			if hand := checkAnswerSameAsSerializer(t, v); hand != handledAnswer(v) {
				t.Errorf("answer %d shape %d (%T): hand-written path %v", i, j, v, hand)
			}
		}
	}
}

// TestAnswerHeadersUnchanged checks that the hand-written answer leaves
// status and headers as the serializer does.
func TestAnswerHeadersUnchanged(t *testing.T) {
	e := echo.New()
	e.JSONSerializer = plainJSON{}
	v := answerShapes(recordedAnswers(t)[0])[2]
	want, got := httptest.NewRecorder(), httptest.NewRecorder()
	if err := e.NewContext(httptest.NewRequest(http.MethodPost, "/v1/agent/run", nil), want).JSON(201, v); err != nil {
		t.Fatal(err)
	}
	if err := answerJSON(e.NewContext(httptest.NewRequest(http.MethodPost, "/v1/agent/run", nil), got), 201, v); err != nil {
		t.Fatal(err)
	}
	if got.Code != want.Code || got.Body.String() != want.Body.String() || !reflect.DeepEqual(got.Header(), want.Header()) {
		t.Errorf("answerJSON gave %d %v %q, c.JSON %d %v %q", got.Code, got.Header(), got.Body, want.Code, want.Header(), want.Body)
	}
}

// BenchmarkAnswerAllocs: a plain run answer of each of the first six
// shapes costs no allocation of its own on Go 1.26 (the serializer: its
// encoder and the reflection of each field).
func BenchmarkAnswerAllocs(b *testing.B) {
	e := echo.New()
	e.JSONSerializer = plainJSON{}
	w := &discardWriter{h: http.Header{}}
	req := httptest.NewRequest(http.MethodPost, "/v1/pipes/run", http.NoBody)
	for i, v := range answerShapes(recordedAnswers(b)[0])[:6] {
		b.Run(fmt.Sprintf("shape %d %T", i, v), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				clear(w.h)
				c := e.AcquireContext()
				c.Reset(req, w)
				if err := answerJSON(c, 200, v); err != nil {
					b.Fatal(err)
				}
				e.ReleaseContext(c)
			}
		})
	}
}

func FuzzAnswers(f *testing.F) {
	for _, line := range recordedUpstreamLines(f, "openai_responses.jsonl") {
		f.Add(line)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		r := new(engine.ChatResponse)
		if json.Unmarshal(data, r) != nil {
			return
		}
		for _, v := range answerShapes(r) {
			checkAnswerSameAsSerializer(t, v)
		}
	})
}

func BenchmarkAnswer(b *testing.B) {
	e := echo.New()
	e.JSONSerializer = plainJSON{}
	w := &discardWriter{h: http.Header{}}
	req := httptest.NewRequest(http.MethodPost, "/v1/pipes/run", http.NoBody)
	r := recordedAnswers(b)[0]
	v := answerShapes(r)[5]
	for _, bc := range []struct {
		name   string
		answer func(c echo.Context) error
	}{
		{"hand", func(c echo.Context) error { return answerJSON(c, 200, v) }},
		{"serializer", func(c echo.Context) error { return plainJSON{}.Serialize(c, v, "") }},
	} {
		b.Run(bc.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				clear(w.h)
				c := e.AcquireContext()
				c.Reset(req, w)
				bc.answer(c)
				e.ReleaseContext(c)
			}
		})
	}
}

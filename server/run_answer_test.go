package server

import (
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/hearth-dev/hearth/engine"
	"github.com/labstack/echo/v4"
)

// answerWriter is a non-stream run's answer buffer (runAnswer) and the
// function that writes the answer from it with its lb-thread-id and
// lb-model values into w.
func answerWriter(tb testing.TB, w *allocRecorder) (*runAnswer, func()) {
	text := "Foxes are quick."
	buf := new(runAnswer)
	e := echo.New()
	e.JSONSerializer = plainJSON{}
	c := e.NewContext(httptest.NewRequest(http.MethodPost, "/v1/pipes/run", nil), w)
	resp := &engine.ChatResponse{ID: "chatcmpl-1", Object: "chat.completion", Model: "gpt-4o-mini",
		Choices: []engine.Choice{{Message: engine.ResponseMessage{Role: "assistant", Content: &text}, FinishReason: "stop"}}}
	return buf, func() {
		clear(w.header)
		c.Response().Committed = false
		setRunHeadersIn(w.header, "thread_1", "openai:gpt-4o-mini", &buf.headers)
		buf.out = runResponse{Success: true, Completion: engine.Completion(resp), Raw: rawView{ID: resp.ID, Object: resp.Object,
			Model: resp.Model, Provider: "openai", Choices: resp.Choices}}
		if err := answerJSON(c, http.StatusOK, &buf.out); err != nil {
			tb.Fatal(err)
		}
	}
}

// TestRunAnswerWrittenFromItsBuffer: a non-stream run's answer and its
// lb-thread-id and lb-model values live in the decoded body's answer
// buffer (runAnswer), not boxed into an interface value (a copy on the
// heap) and a slice of header values. The answer written is the
// serializer's, as for any answer.
func TestRunAnswerWrittenFromItsBuffer(t *testing.T) {
	w := &allocRecorder{header: http.Header{}}
	buf, write := answerWriter(t, w)
	write()
	if w.header[HeaderThreadID][0] != "thread_1" || w.header[HeaderModel][0] != "openai:gpt-4o-mini" ||
		&w.header[HeaderThreadID][0] != &buf.headers[0] {
		t.Fatalf("headers %v", w.header)
	}
	checkAnswerSameAsSerializer(t, &buf.out)
}

// BenchmarkRunAnswerAllocs: writing a run's answer and headers from its
// answer buffer allocates nothing of its own (Go 1.26); before, the answer
// was boxed into an interface value and the header values took a slice.
func BenchmarkRunAnswerAllocs(b *testing.B) {
	w := &allocRecorder{header: http.Header{}}
	_, write := answerWriter(b, w)
	write()
	b.ReportAllocs()
	for b.Loop() {
		write()
	}
}

// checkAnswerSameAsSerializer fails unless answerJSON writes what the
// server's serializer writes for v.
func checkAnswerSameAsSerializer(t *testing.T, v any) {
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
}

package server

import (
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/hearth-dev/hearth/engine"
	"github.com/labstack/echo/v4"
)

// TestRunAnswerRoom: a non-stream run's answer and its lb-thread-id and
// lb-model values live in the decoded body (runAnswer), so writing them
// allocates nothing of its own: before, the answer was boxed into an
// interface value (a copy on the heap) and the header values took a slice.
// The answer written is the serializer's, as for any answer.
func TestRunAnswerRoom(t *testing.T) {
	text := "Foxes are quick."
	room := new(runAnswer)
	e := echo.New()
	e.JSONSerializer = plainJSON{}
	w := &allocRecorder{header: http.Header{}}
	c := e.NewContext(httptest.NewRequest(http.MethodPost, "/v1/pipes/run", nil), w)
	resp := &engine.ChatResponse{ID: "chatcmpl-1", Object: "chat.completion", Model: "gpt-4o-mini",
		Choices: []engine.Choice{{Message: engine.ResponseMessage{Role: "assistant", Content: &text}, FinishReason: "stop"}}}
	write := func() {
		clear(w.header)
		c.Response().Committed = false
		setRunHeadersIn(w.header, "thread_1", "openai:gpt-4o-mini", &room.headers)
		room.out = runResponse{Success: true, Completion: engine.Completion(resp), Raw: rawView{ID: resp.ID, Object: resp.Object,
			Model: resp.Model, Provider: "openai", Choices: resp.Choices}}
		if err := answerJSON(c, http.StatusOK, &room.out); err != nil {
			t.Fatal(err)
		}
	}
	write()
	if w.header[HeaderThreadID][0] != "thread_1" || w.header[HeaderModel][0] != "openai:gpt-4o-mini" {
		t.Fatalf("headers %v", w.header)
	}
	checkAnswerSameAsSerializer(t, &room.out)
	if raceDetector {
		t.Skip("the race detector moves values to the heap")
	}
	if n := testing.AllocsPerRun(100, write); n != 0 {
		t.Fatalf("writing a run's answer and headers allocates %.0f times, want 0", n)
	}
}

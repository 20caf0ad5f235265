package server_test

import (
	"strings"
	"testing"

	"github.com/hearth-dev/hearth/providers/fake"
	"github.com/hearth-dev/hearth/server"
	"github.com/hearth-dev/hearth/server/servertest"
)

// TestMessagesFallbackAndOTel: LB-Fallback-Models applies as on chat
// completions (the answer and lb-model come from the fallback), and the
// call is traced like one: a server span for the route with the failed
// and the answering provider calls under it.
func TestMessagesFallbackAndOTel(t *testing.T) {
	ts, rec, up := startTraced(t)
	up.Enqueue(fake.Reply{Status: 500, Message: "down"}, fake.Reply{Status: 500, Message: "down"}, fake.Reply{Text: "from the fallback"})
	r := postMessages(ts, admin, msgReq("openai:gpt-4o-mini", "hi"), server.HeaderFallbackModels, "openai/gpt-4o")
	mustStatus(t, r, 200)
	var out msgResponse
	r.JSON(t, &out)
	if len(out.Content) != 1 || out.Content[0]["text"] != "from the fallback" || r.Header.Get(server.HeaderModel) != "openai:gpt-4o" {
		t.Fatalf("fallback: %v %s", r.Header, r.Body)
	}
	ts.FlushTraces()
	trace := rec.Trace(r.Header.Get(server.HeaderTraceID))
	one(t, trace, "POST /anthropic/v1/messages")
	if failed, ok := one(t, trace, "chat gpt-4o-mini"), one(t, trace, "chat gpt-4o"); failed.StatusCode != 2 || ok.StatusCode == 2 {
		t.Errorf("status: primary %d, fallback %d; want the primary failed only", failed.StatusCode, ok.StatusCode)
	}
}

// TestMessagesRecordReplay: a Messages session recorded against the
// upstream replays with the upstream gone, and in deterministic mode the
// replayed answers, whole and streamed, are byte for byte the recorded
// ones.
func TestMessagesRecordReplay(t *testing.T) {
	dir := t.TempDir()
	up := fake.NewOpenAI()
	up.SetDefault(fake.Reply{Text: "Recorded once, replayed forever."})
	var answers [2][2]string
	for i, opt := range []servertest.Option{servertest.WithRecord(dir), servertest.WithReplay(dir, "error")} {
		ts := servertest.Start(t, servertest.WithProvider("openai", up.BaseURL(), "sk-test"), servertest.WithDeterministic(), opt)
		r := postMessages(ts, admin, msgReq("openai:gpt-4o-mini", "hi"))
		mustStatus(t, r, 200)
		s := postMessages(ts, admin, msgReq("openai:gpt-4o-mini", "hi again", "stream", true))
		mustStatus(t, s, 200)
		answers[i] = [2]string{string(r.Body), string(s.Body)}
		up.Close() // the replay runs without it
	}
	if !strings.Contains(answers[1][0], "Recorded once, replayed forever.") || !strings.Contains(answers[1][1], "event: message_stop") {
		t.Fatalf("replay: %q", answers[1])
	}
	if answers[0] != answers[1] {
		t.Fatalf("replayed answers differ:\n%s\n%s", answers[0], answers[1])
	}
}

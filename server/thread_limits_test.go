package server_test

import (
	"fmt"
	"reflect"
	"strings"
	"testing"

	"github.com/hearth-dev/hearth/engine"
	"github.com/hearth-dev/hearth/server/servertest"
)

func texts(n int, prefix string) []any {
	out := make([]any, n)
	for i := range out {
		out[i] = user(fmt.Sprintf("%s%d", prefix, i))
	}
	return out
}

// A thread holds at most MaxMessages messages of at most MaxMessageBytes
// each: creates, appends and runs past them get 413 naming the field and
// the limit, and nothing is written (nor is the model called).
func TestThreadLimits(t *testing.T) {
	e := startEnv(t)
	e.threads.SetLimits(engine.ThreadLimits{MaxMessages: 5, MaxMessageBytes: 2048})
	e.createPipe(t, admin, map[string]any{"name": "p"})
	tooLarge := func(what string, r *servertest.Response, field, limit string) {
		t.Helper()
		code, msg := errorOf(t, r)
		if r.Status != 413 || code != "PAYLOAD_TOO_LARGE" || !strings.HasPrefix(msg, field+":") || !strings.Contains(msg, limit) {
			t.Fatalf("%s: %d %s", what, r.Status, r.Body)
		}
	}
	r := e.Do("POST", "/v1/threads", admin, map[string]any{"threadId": "t1", "messages": texts(6, "m")})
	tooLarge("create with 6", r, "messages", "limit of 5 messages")
	if r := e.Do("GET", "/v1/threads/t1", admin, nil); r.Status != 404 {
		t.Fatalf("a refused create left a thread: %d", r.Status)
	}
	if r := e.Do("POST", "/v1/threads", admin, map[string]any{"threadId": "t1", "messages": texts(3, "m")}); r.Status != 200 {
		t.Fatalf("create: %d %s", r.Status, r.Body)
	}
	r = e.Do("POST", "/v1/threads/t1/messages", admin, texts(3, "x"))
	tooLarge("append past the cap", r, "messages", "holds 3 messages")
	big := []any{user(strings.Repeat("z", 3000))}
	r = e.Do("POST", "/v1/threads/t1/messages", admin, big)
	tooLarge("large message", r, "messages[0]", "limit is 2048 bytes")
	// A run needs room for its request and the answer: 3 + 1 + 1 fits.
	calls := e.llm.count()
	r = e.Do("POST", "/v1/pipes/run", admin, map[string]any{"name": "p", "threadId": "t1", "messages": []any{user("a"), user("b")}})
	tooLarge("run past the cap", r, "threadId", "limit of 5 messages")
	r = e.Do("POST", "/v1/pipes/run", admin, map[string]any{"name": "p", "messages": big})
	tooLarge("run with a large message", r, "messages[0]", "2048 bytes")
	if e.llm.count() != calls {
		t.Fatal("the model was called for a refused run")
	}
	if r := e.Do("POST", "/v1/pipes/run", admin, map[string]any{"name": "p", "threadId": "t1", "messages": []any{user("a")}}); r.Status != 200 {
		t.Fatalf("run that fits: %d %s", r.Status, r.Body)
	}
	var msgs []map[string]any
	e.Do("GET", "/v1/threads/t1/messages", admin, nil).JSON(t, &msgs)
	if len(msgs) != 5 {
		t.Fatalf("thread has %d messages, want 5", len(msgs))
	}
	r = e.Do("POST", "/v1/threads/t1/messages", admin, texts(1, "y"))
	tooLarge("append to a full thread", r, "messages", "limit of 5 messages")
}

// A run sends the newest messages of its thread that fit the history
// budget, oldest of them first, and drops a tool result whose call fell
// outside it.
func TestRunHistoryBudget(t *testing.T) {
	e := startEnv(t)
	e.threads.SetLimits(engine.ThreadLimits{HistoryBytes: 1200})
	e.createPipe(t, admin, map[string]any{"name": "p"})
	pad := strings.Repeat("p", 700)
	msgs := []any{
		user("old " + pad),
		map[string]any{"role": "assistant", "content": "call " + pad, "tool_calls": []any{map[string]any{
			"id": "call_1", "type": "function", "function": map[string]any{"name": "f", "arguments": "{}"}}}},
		map[string]any{"role": "tool", "tool_call_id": "call_1", "content": "result"},
		user("n1"), map[string]any{"role": "assistant", "content": "n2"}, user("n3"),
	}
	if r := e.Do("POST", "/v1/threads", admin, map[string]any{"threadId": "h", "messages": msgs}); r.Status != 200 {
		t.Fatalf("create: %d %s", r.Status, r.Body)
	}
	if r := e.Do("POST", "/v1/pipes/run", admin, map[string]any{"name": "p", "threadId": "h", "messages": []any{user("now")}}); r.Status != 200 {
		t.Fatalf("run: %d %s", r.Status, r.Body)
	}
	want := []string{"user: n1", "assistant: n2", "user: n3", "user: now"}
	if got := plain(e.llm.last(t).Messages); !reflect.DeepEqual(got, want) {
		t.Fatalf("history sent\n got %q\nwant %q", got, want)
	}
	// With room for the call, the call and its result both go.
	e.threads.SetLimits(engine.ThreadLimits{HistoryBytes: 4000})
	e.Do("POST", "/v1/pipes/run", admin, map[string]any{"name": "p", "threadId": "h", "messages": []any{user("again")}})
	got := e.llm.last(t).Messages
	if len(got) != 9 || got[0].Role != "user" || got[1].Role != "assistant" || got[2].Role != "tool" {
		t.Fatalf("history with room: %q", plain(got))
	}
}

// GET /v1/threads/{id}/messages answers the SDK's plain array, oldest
// first, whole; ?limit pages it with the lb-next-cursor header, ?order=desc
// reverses it; bad parameters are 400 naming the parameter.
func TestThreadMessagesPages(t *testing.T) {
	e := startEnv(t)
	if r := e.Do("POST", "/v1/threads", admin, map[string]any{"threadId": "t", "messages": texts(250, "m")}); r.Status != 200 {
		t.Fatalf("create: %d %s", r.Status, r.Body)
	}
	contents := func(r []map[string]any) []string {
		out := make([]string, len(r))
		for i, m := range r {
			out[i], _ = m["content"].(string)
		}
		return out
	}
	var all []map[string]any
	r := e.Do("GET", "/v1/threads/t/messages", admin, nil)
	r.JSON(t, &all)
	if len(all) != 250 || all[0]["content"] != "m0" || all[249]["content"] != "m249" || r.Header.Get("lb-next-cursor") != "" {
		t.Fatalf("whole list: %d messages, %v", len(all), contents(all[:3]))
	}
	for _, order := range []string{"asc", "desc"} {
		var got []string
		cursor := ""
		for pages := 0; ; pages++ {
			if pages > 10 {
				t.Fatal("pagination does not end")
			}
			path := "/v1/threads/t/messages?limit=100&order=" + order
			if cursor != "" {
				path += "&cursor=" + cursor
			}
			var page []map[string]any
			r := e.Do("GET", path, admin, nil)
			r.JSON(t, &page)
			got = append(got, contents(page)...)
			if cursor = r.Header.Get("lb-next-cursor"); cursor == "" {
				break
			}
		}
		want := contents(all)
		if order == "desc" {
			for i, j := 0, len(want)-1; i < j; i, j = i+1, j-1 {
				want[i], want[j] = want[j], want[i]
			}
		}
		if !reflect.DeepEqual(got, want) {
			t.Fatalf("order %s: %d messages, first %v", order, len(got), got[:3])
		}
	}
	var newest []map[string]any
	e.Do("GET", "/v1/threads/t/messages?limit=2&order=desc", admin, nil).JSON(t, &newest)
	if !reflect.DeepEqual(contents(newest), []string{"m249", "m248"}) {
		t.Fatalf("newest two: %v", contents(newest))
	}
	for q, field := range map[string]string{"limit=0": "limit", "limit=1001": "limit", "limit=x": "limit",
		"order=sideways": "order", "limit=5&cursor=abc": "cursor", "cursor=-1": "cursor"} {
		r := e.Do("GET", "/v1/threads/t/messages?"+q, admin, nil)
		if _, msg := errorOf(t, r); r.Status != 400 || !strings.HasPrefix(msg, field+":") {
			t.Fatalf("%s: %d %s", q, r.Status, r.Body)
		}
	}
	if r := e.Do("GET", "/v1/threads/nope/messages", admin, nil); r.Status != 404 {
		t.Fatalf("missing thread: %d %s", r.Status, r.Body)
	}
	var empty []map[string]any
	e.Do("POST", "/v1/threads", admin, map[string]any{"threadId": "e"})
	if r := e.Do("GET", "/v1/threads/e/messages", admin, nil); string(r.Body) != "[]" {
		t.Fatalf("empty thread: %s", r.Body)
	} else {
		r.JSON(t, &empty)
	}
}

// A page asked for with ?limit ends early at 8 MiB, with a cursor to the
// rest; the whole list still holds every message.
func TestThreadMessagePageBytes(t *testing.T) {
	e := startEnv(t)
	big := strings.Repeat("x", 450<<10)
	for i := 0; i < 2; i++ {
		msgs := make([]any, 10)
		for j := range msgs {
			msgs[j] = user(fmt.Sprintf("%d-%d %s", i, j, big))
		}
		path := "/v1/threads/t/messages"
		body := any(msgs)
		if i == 0 {
			path, body = "/v1/threads", map[string]any{"threadId": "t", "messages": msgs}
		}
		mustStatus(t, e.Do("POST", path, admin, body), 200)
	}
	var page []map[string]any
	r := e.Do("GET", "/v1/threads/t/messages?limit=20", admin, nil)
	r.JSON(t, &page)
	cursor := r.Header.Get("lb-next-cursor")
	if len(r.Body) > 8<<20+64<<10 || len(page) >= 20 || len(page) < 10 || cursor == "" {
		t.Fatalf("first page: %d messages, %d bytes, cursor %q", len(page), len(r.Body), cursor)
	}
	var rest []map[string]any
	r = e.Do("GET", "/v1/threads/t/messages?limit=20&cursor="+cursor, admin, nil)
	r.JSON(t, &rest)
	if len(page)+len(rest) != 20 || r.Header.Get("lb-next-cursor") != "" || !strings.HasPrefix(rest[len(rest)-1]["content"].(string), "1-9 ") {
		t.Fatalf("second page: %d messages, cursor %q", len(rest), r.Header.Get("lb-next-cursor"))
	}
	var all []map[string]any
	e.Do("GET", "/v1/threads/t/messages", admin, nil).JSON(t, &all)
	if len(all) != 20 {
		t.Fatalf("whole list: %d messages", len(all))
	}
}

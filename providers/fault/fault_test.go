package fault

import (
	"context"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/hearth-dev/hearth/providers/netguard"
)

func TestParse(t *testing.T) {
	good := map[string]string{
		"429":                                    "429",
		"openai:429@0.1, anthropic:timeout@0.05": "openai:429@0.1,anthropic:timeout@0.05",
		"cut-stream-after=3":                     "cut-stream-after=3",
		"slow-first-token=2s*2":                  "slow-first-token=2s*2",
		"OpenAI:500*1":                           "openai:500*1",
		"slow-commit=250ms, openai:429@0.5":      "slow-commit=250ms,openai:429@0.5",
	}
	for in, want := range good {
		rules, err := Parse(in)
		if err != nil {
			t.Fatalf("%q: %v", in, err)
		}
		var got []string
		for _, r := range rules {
			got = append(got, r.String())
		}
		if strings.Join(got, ",") != want {
			t.Fatalf("%q: %v, want %s", in, got, want)
		}
	}
	bad := map[string]string{
		"":                      "no fault rule",
		"600":                   "400-599",
		"boom":                  "unknown fault",
		"429@0":                 "@rate",
		"429@1.5":               "@rate",
		"429*0":                 "*times",
		":429":                  "empty provider",
		"cut-stream-after=x":    "whole number",
		"slow-first-token=1h":   "at most",
		"timeout=3":             "unknown fault",
		"slow-commit=0s":        "slow-commit=D",
		"slow-commit=1h":        "at most",
		"slow-commit":           "unknown fault",
		"openai:slow-commit=1s": "no provider",
		"slow-commit=1s@0.5":    "no provider, @rate",
		"slow-commit=1s*1":      "*times",
	}
	for in, want := range bad {
		if _, err := Parse(in); err == nil || !strings.Contains(err.Error(), want) {
			t.Fatalf("%q: %v, want %q", in, err, want)
		}
	}
}

type body struct{ *strings.Reader }

func (body) Close() error { return nil }

type fixed string

func (f fixed) RoundTrip(req *http.Request) (*http.Response, error) {
	return &http.Response{StatusCode: 200, Body: body{strings.NewReader(string(f))}, Request: req}, nil
}

// TestCutBody: the answer ends with an unexpected EOF right after the
// Nth event, whatever the read sizes.
func TestCutBody(t *testing.T) {
	stream := "data: 1\n\ndata: 2\r\n\r\ndata: 3\n\ndata: [DONE]\n\n"
	for _, n := range []int{0, 1, 2, 5} {
		tr := &Transport{Base: fixed(stream), Rules: []Rule{{Kind: KindCutStream, Events: n, Rate: 1}}}
		req, _ := http.NewRequest("POST", "http://x/", nil)
		resp, err := tr.RoundTrip(req)
		if err != nil {
			t.Fatal(err)
		}
		got, err := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
		want := map[int]string{0: "", 1: "data: 1\n\n", 2: "data: 1\n\ndata: 2\r\n\r\n", 5: stream}[n]
		if string(got) != want {
			t.Fatalf("cut after %d: %q, want %q", n, got, want)
		}
		if n < 4 && err != io.ErrUnexpectedEOF {
			t.Fatalf("cut after %d: err %v", n, err)
		}
	}
}

// TestPick: request rules win over server rules, match their provider,
// and *times counts per request.
func TestPick(t *testing.T) {
	tr := &Transport{Rules: []Rule{{Provider: "openai", Kind: KindStatus, Status: 503, Rate: 1}},
		Float: func() float64 { return 0.5 }}
	ctx := netguard.WithFeature(context.Background(), "openai")
	if r, ok := tr.pick(ctx, "openai"); !ok || r.Status != 503 {
		t.Fatalf("server rule: %v %v", r, ok)
	}
	if _, ok := tr.pick(ctx, "anthropic"); ok {
		t.Fatal("server rule applied to another provider")
	}
	rules, _ := Parse("429*2,cohere:500@0.4")
	rctx := WithRequest(ctx, rules)
	for i, want := range []int{429, 429, 503} {
		if r, _ := tr.pick(rctx, "openai"); r.Status != want {
			t.Fatalf("call %d: %v, want %d", i, r, want)
		}
	}
	if _, ok := tr.pick(WithRequest(ctx, rules[1:]), "cohere"); ok {
		t.Fatal("@0.4 applied at draw 0.5")
	}
}

// TestSlowCommitTouchesNoUpstream: a slow-commit rule is for the thread
// store only; upstream calls pass it unchanged, and SlowCommit finds it.
func TestSlowCommitTouchesNoUpstream(t *testing.T) {
	rules, err := Parse("slow-commit=300ms")
	if err != nil {
		t.Fatal(err)
	}
	if d := SlowCommit(rules); d.String() != "300ms" {
		t.Fatalf("SlowCommit: %v", d)
	}
	tr := &Transport{Base: fixed("data: ok\n\n"), Rules: rules}
	req, _ := http.NewRequest("POST", "http://x/", nil)
	req = req.WithContext(WithRequest(context.Background(), rules))
	resp, err := tr.RoundTrip(req)
	if err != nil || resp.StatusCode != 200 {
		t.Fatalf("upstream call: %v %v", resp, err)
	}
	if got, _ := io.ReadAll(resp.Body); string(got) != "data: ok\n\n" {
		t.Fatalf("body %q", got)
	}
	if SlowCommit([]Rule{{Kind: KindTimeout, Rate: 1}}) != 0 {
		t.Fatal("SlowCommit without a slow-commit rule")
	}
}

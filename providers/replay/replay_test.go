package replay

import (
	"context"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hearth-dev/hearth/providers/netguard"
)

func key(t *testing.T, url, ctype, body string) string {
	t.Helper()
	req, err := http.NewRequest("POST", url, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", ctype)
	return normalise("openai", req, []byte(body)).Key()
}

// TestKeyStable: the key ignores the host, credentials in the query,
// volatile body fields, key order and multipart boundaries, and changes
// with anything else.
func TestKeyStable(t *testing.T) {
	base := key(t, "http://127.0.0.1:1111/v1/chat?key=AIza-secret&alt=sse", "application/json", `{"model":"m","messages":[1],"user":"u1"}`)
	for _, same := range [][3]string{
		{"http://127.0.0.1:2222/v1/chat?alt=sse&key=other", "application/json", `{"messages":[1],"model":"m","user":"u2"}`},
		{"https://api.example.com/v1/chat?alt=sse", "application/json", `{"messages":[1],"model":"m","request_id":"r9"}`},
	} {
		if k := key(t, same[0], same[1], same[2]); k != base {
			t.Fatalf("%v: key changed", same)
		}
	}
	for _, diff := range [][3]string{
		{"http://h/v1/chat?alt=sse", "application/json", `{"model":"m","messages":[2]}`},
		{"http://h/v1/embed?alt=sse", "application/json", `{"model":"m","messages":[1]}`},
		{"http://h/v1/chat", "application/json", `{"model":"m","messages":[1]}`},
	} {
		if k := key(t, diff[0], diff[1], diff[2]); k == base {
			t.Fatalf("%v: same key", diff)
		}
	}
	a := key(t, "http://h/img", "multipart/form-data; boundary=AAA", "--AAA\r\nx\r\n--AAA--")
	b := key(t, "http://h/img", "multipart/form-data; boundary=BBB", "--BBB\r\nx\r\n--BBB--")
	if a != b {
		t.Fatal("multipart boundary changes the key")
	}
}

type chunked []string

func (c chunked) RoundTrip(req *http.Request) (*http.Response, error) {
	h := http.Header{"Content-Type": {"text/event-stream"}}
	return &http.Response{StatusCode: 200, Header: h, Body: &chunkBody{chunks: c}, Request: req}, nil
}

// TestRoundTrip: a recorded answer replays chunk for chunk, its key's
// secrets scrubbed; the same request twice replays both answers in order.
func TestRoundTrip(t *testing.T) {
	dir := t.TempDir()
	ctx := netguard.WithFeature(context.Background(), "openai")
	send := func(rt http.RoundTripper) []string {
		req, _ := http.NewRequestWithContext(ctx, "POST", "http://h/v1/chat", strings.NewReader(`{"q":1}`))
		req.Header.Set("Authorization", "Bearer sk-secret-123456")
		resp, err := rt.RoundTrip(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		var got []string
		buf := make([]byte, 64)
		for {
			n, err := resp.Body.Read(buf)
			if n > 0 {
				got = append(got, string(buf[:n]))
			}
			if err == io.EOF {
				return got
			}
		}
	}
	rec := &Recorder{Base: chunked{"data: 1\n\n", "data: key sk-secret-123456\n\n"}, Dir: dir}
	first := send(rec)
	rec.Base = chunked{"data: 2\n\n"}
	send(rec)
	files, _ := filepath.Glob(filepath.Join(dir, "openai", "*.json"))
	if len(files) != 2 {
		t.Fatalf("files %v", files)
	}
	for _, f := range files {
		b, _ := os.ReadFile(f)
		if strings.Contains(string(b), "sk-secret-123456") {
			t.Fatalf("%s holds the key: %s", f, b)
		}
	}
	play := &Replayer{Dir: dir}
	got := send(play)
	if len(got) != 2 || got[0] != first[0] || !strings.Contains(got[1], "data: key ") {
		t.Fatalf("replay %q, recorded %q", got, first)
	}
	if got := send(play); len(got) != 1 || got[0] != "data: 2\n\n" {
		t.Fatalf("second replay %q", got)
	}
	if got := send(play); got[0] != "data: 2\n\n" {
		t.Fatalf("third replay (repeats the last) %q", got)
	}
}

package providers_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/hearth-dev/hearth/engine"
	"github.com/hearth-dev/hearth/providers"
)

// echoKeyServer answers every request with an error that quotes the
// credentials it received, as some hosts do ("Incorrect API key provided:
// sk-..."). stream makes it answer 200 with an SSE error event instead.
func echoKeyServer(t *testing.T, status int, stream bool) *httptest.Server {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		got := r.Header.Get("Authorization") + " " + r.Header.Get("x-api-key") + " " + r.Header.Get("x-goog-api-key")
		msg := fmt.Sprintf("Incorrect API key provided: %s (server key %s)", strings.TrimSpace(got), "sk-server-wide-0001")
		if stream {
			w.Header().Set("Content-Type", "text/event-stream")
			fmt.Fprintf(w, "data: {\"error\":{\"type\":\"server_error\",\"message\":%q}}\n\n", msg)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(status)
		fmt.Fprintf(w, `{"error":{"message":%q}}`, msg)
	}))
	t.Cleanup(srv.Close)
	return srv
}

// logged is what the server's error log would print for err.
func logged(err error) string {
	var buf bytes.Buffer
	slog.New(slog.NewTextHandler(&buf, nil)).Error("request failed", "err", err)
	return buf.String()
}

func assertRedacted(t *testing.T, err error, secrets ...string) {
	t.Helper()
	if err == nil {
		t.Fatal("want an error")
	}
	e := asEngine(t, err)
	for _, s := range secrets {
		for what, text := range map[string]string{"message": e.Message, "error": err.Error(), "log": logged(err)} {
			if strings.Contains(text, s) {
				t.Errorf("%s shows the secret %q: %s", what, s, text)
			}
		}
	}
	if !strings.Contains(logged(err), providers.Redacted) {
		t.Errorf("log line %q does not say what was redacted", logged(err))
	}
}

func TestUpstreamErrorsRedactKeys(t *testing.T) {
	cases := []struct {
		provider string
		stream   bool
	}{{"openai", false}, {"openai", true}, {"anthropic", false}, {"google", false}}
	for _, tc := range cases {
		provider, stream := tc.provider, tc.stream
		t.Run(fmt.Sprintf("%s stream=%v", provider, stream), func(t *testing.T) {
			srv := echoKeyServer(t, http.StatusUnauthorized, stream)
			reg, err := providers.New(providers.Config{
				Providers: map[string]providers.ProviderConfig{provider: {BaseURL: srv.URL, APIKey: "sk-server-wide-0001"}},
				Retry:     providers.RetryPolicy{MaxAttempts: 1}, Timeout: 5 * time.Second,
			})
			if err != nil {
				t.Fatal(err)
			}
			m, err := reg.ChatModel(engine.ModelRef{Provider: provider, Model: "m"})
			if err != nil {
				t.Fatal(err)
			}
			req := &engine.ChatRequest{Model: "m", APIKey: "sk-user-request-key-42", Messages: []engine.Message{userMsg("hi")}}
			if !stream {
				_, err = m.Chat(context.Background(), req)
				assertRedacted(t, err, "sk-user-request-key-42", "sk-server-wide-0001")
				if providers.UpstreamStatus(err) != http.StatusUnauthorized {
					t.Errorf("upstream status lost: %v", err)
				}
				return
			}
			s, err := m.ChatStream(context.Background(), req)
			if err != nil {
				t.Fatal(err)
			}
			defer s.Close()
			for err == nil {
				_, err = s.Recv()
			}
			assertRedacted(t, err, "sk-user-request-key-42", "sk-server-wide-0001")
		})
	}
}

// TestUpstreamRedactsServiceKeys covers the building block of image hosts,
// web search and crawl services: a key sent in any credential header, or
// in the URL's query, never comes back in the error.
func TestUpstreamRedactsServiceKeys(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.WriteHeader(http.StatusForbidden)
		fmt.Fprintf(w, `{"message":"key %s / token %s / query %s refused"}`, r.Header.Get("x-api-key"), r.Header.Get("X-Auth-Token"), r.URL.Query().Get("key"))
	}))
	defer srv.Close()
	up := providers.NewUpstream("exa", providers.Config{Retry: providers.RetryPolicy{MaxAttempts: 1}}, 0)
	err := up.Get(context.Background(), srv.URL+"/search?key=query-secret-77", nil, func(h http.Header) {
		h.Set("x-api-key", "exa-search-key-9")
		h.Set("X-Auth-Token", "crawl-token-5")
	})
	assertRedacted(t, err, "exa-search-key-9", "crawl-token-5", "query-secret-77")
}

// TestTransportErrorRedactsURLKey: a failed round trip's error quotes the
// request URL, which may carry a key in its query.
func TestTransportErrorRedactsURLKey(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(http.ResponseWriter, *http.Request) {}))
	url := srv.URL
	srv.Close()
	up := providers.NewUpstream("crawl", providers.Config{Retry: providers.RetryPolicy{MaxAttempts: 1}}, 0)
	err := up.Get(context.Background(), url+"/x?api_key=url-secret-31", nil, nil)
	assertRedacted(t, err, "url-secret-31")
}

func TestSecretsError(t *testing.T) {
	s := providers.RequestSecrets(http.Header{"Authorization": {"Bearer abcd-1234"}, "Accept": {"application/json"}}, nil, "srv-key-1", "ab")
	cause := fmt.Errorf("wrapped: %w (abcd-1234)", context.DeadlineExceeded)
	err := s.Error(&engine.Error{Code: engine.CodeUpstream, Message: "bad srv-key-1, ab, application/json", Err: cause})
	e := asEngine(t, err)
	if e.Message != "bad [REDACTED], ab, application/json" {
		t.Errorf("message = %q", e.Message)
	}
	if strings.Contains(err.Error(), "abcd-1234") || !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("cause not redacted or chain lost: %v", err)
	}
	if s.Error(nil) != nil {
		t.Error("nil error became non-nil")
	}
}

package providers_test

import (
	"context"
	"errors"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/hearth-dev/hearth/engine"
	"github.com/hearth-dev/hearth/providers"
)

func chatError(t *testing.T, provider, baseURL, key string) *engine.Error {
	t.Helper()
	r, err := providers.New(providers.Config{
		Providers: map[string]providers.ProviderConfig{provider: {BaseURL: baseURL, APIKey: key}},
		Retry:     providers.RetryPolicy{MaxAttempts: 1}, Timeout: 5 * time.Second,
	})
	if err != nil {
		t.Fatal(err)
	}
	chat, err := r.ChatModel(engine.ModelRef{Provider: provider, Model: "m"})
	if err != nil {
		t.Fatal(err)
	}
	_, err = chat.Chat(context.Background(), &engine.ChatRequest{Model: "m", APIKey: key, Messages: []engine.Message{userMsg("hi")}})
	var e *engine.Error
	if !errors.As(err, &e) {
		t.Fatalf("error %v", err)
	}
	return e
}

// An answer that suggests a wrong base URL names the URL called and the
// setting holding it; without a version segment it hints at /v1 (docs/providers.md#failures).
func TestProviderErrorsNameTheAddress(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if strings.HasPrefix(r.URL.Path, "/v1/") {
			w.WriteHeader(http.StatusTeapot)
			w.Write([]byte(`{"error":{"message":"short and stout"}}`))
			return
		}
		http.NotFound(w, r) // "404 page not found", as Ollama answers
	}))
	defer srv.Close()

	e := chatError(t, "ollama", srv.URL, "")
	for _, want := range []string{"ollama: 404 page not found", "POST " + srv.URL + "/chat/completions", "HEARTH_OLLAMA_BASE_URL", "hint:", "/v1"} {
		if !strings.Contains(e.Message, want) {
			t.Fatalf("message lacks %q: %s", want, e.Message)
		}
	}
	// With /v1 a 404 gets the address but no hint; other statuses neither.
	if e := chatError(t, "openai-compatible", srv.URL+"/api/v1x/", ""); !strings.Contains(e.Message, "HEARTH_OPENAI_COMPATIBLE_BASE_URL") || strings.Contains(e.Message, "hint:") {
		t.Fatalf("versioned 404: %s", e.Message)
	}
	if e := chatError(t, "ollama", srv.URL+"/v1", ""); strings.Contains(e.Message, "HEARTH_OLLAMA_BASE_URL") || !strings.Contains(e.Message, "short and stout") {
		t.Fatalf("418: %s", e.Message)
	}

	// Nothing listening: the address and setting, never a query secret.
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	dead := "http://" + ln.Addr().String()
	ln.Close()
	e = chatError(t, "ollama", dead+"/v1", "")
	if e.Code != engine.CodeUpstream || !strings.Contains(e.Message, "could not reach ollama (POST "+dead+"/v1/chat/completions; the base URL is set by HEARTH_OLLAMA_BASE_URL)") {
		t.Fatalf("unreachable: %s %s", e.Code, e.Message)
	}
	e = chatError(t, "google", dead+"/v1beta", "AIzaSecretKey123456")
	if strings.Contains(e.Message, "AIzaSecretKey123456") || strings.Contains(e.Message, "key=") || !strings.Contains(e.Message, "HEARTH_GOOGLE_BASE_URL") {
		t.Fatalf("google: %s", e.Message)
	}
}

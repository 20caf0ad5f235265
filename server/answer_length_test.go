package server

import (
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/labstack/echo/v4"
)

// TestAnswerContentLength: a non-stream JSON answer longer than net/http's
// buffer goes out with its Content-Length, not chunked, whether it is
// written by hand (the run routes) or by the JSON serializer (every other
// answer, and a run answer asked for ?pretty); a short one keeps the
// Content-Length net/http gives it. The bodies are unchanged.
func TestAnswerContentLength(t *testing.T) {
	long := strings.Repeat("x", 3*chunkedAbove)
	e := echo.New()
	e.JSONSerializer = plainJSON{}
	e.POST("/hand", func(c echo.Context) error {
		out := c.QueryParam("out")
		return answerJSON(c, http.StatusOK, &agentResponse{Output: &out})
	})
	e.POST("/hand-pretty", func(c echo.Context) error { return answerJSON(c, http.StatusOK, &agentResponse{Output: &long}) })
	e.POST("/serializer", func(c echo.Context) error {
		return c.JSON(http.StatusCreated, map[string]any{"long": c.QueryParam("out"), "html": "<a&b>"})
	})
	e.POST("/error", func(c echo.Context) error {
		return c.JSON(http.StatusBadRequest, ErrorBody4xx{Error: ErrorDetail{Message: long}})
	})
	srv := httptest.NewServer(e)
	defer srv.Close()
	for _, tc := range []struct {
		path, want string
		status     int
	}{
		{"/hand?out=" + long, `{"output":"` + long + "\"}\n", 200},
		{"/hand?out=short", "{\"output\":\"short\"}\n", 200},
		{"/hand-pretty?pretty", "{\n  \"output\": \"" + long + "\"\n}\n", 200},
		{"/serializer?out=" + long, `{"html":"<a&b>","long":"` + long + "\"}\n", 201},
		{"/serializer?out=s", "{\"html\":\"<a&b>\",\"long\":\"s\"}\n", 201},
		{"/error", "", 400},
	} {
		resp, err := http.Post(srv.URL+tc.path, "application/json", nil)
		if err != nil {
			t.Fatal(err)
		}
		body, err := io.ReadAll(resp.Body)
		resp.Body.Close()
		if err != nil {
			t.Fatal(err)
		}
		if resp.StatusCode != tc.status || (tc.want != "" && string(body) != tc.want) {
			t.Fatalf("%s: %d %.80q", tc.path, resp.StatusCode, body)
		}
		if len(resp.TransferEncoding) != 0 || resp.ContentLength != int64(len(body)) {
			t.Fatalf("%s: %d bytes sent with Transfer-Encoding %v and Content-Length %d", tc.path[:10], len(body),
				resp.TransferEncoding, resp.ContentLength)
		}
		if ct := resp.Header.Get("Content-Type"); ct != echo.MIMEApplicationJSON {
			t.Fatalf("%s: Content-Type %q", tc.path[:10], ct)
		}
	}
}

// TestAnswerLengthCommitted: an answer written after the response was
// committed sets no Content-Length (the headers are gone).
func TestAnswerLengthCommitted(t *testing.T) {
	e := echo.New()
	rec := httptest.NewRecorder()
	c := e.NewContext(httptest.NewRequest(http.MethodGet, "/", nil), rec)
	answerLength(c, chunkedAbove+1)
	if got := c.Response().Header().Get(echo.HeaderContentLength); got != "2049" {
		t.Fatalf("Content-Length %q", got)
	}
	c2 := e.NewContext(httptest.NewRequest(http.MethodGet, "/", nil), httptest.NewRecorder())
	c2.Response().WriteHeader(http.StatusOK)
	answerLength(c2, chunkedAbove+1)
	if got := c2.Response().Header().Get(echo.HeaderContentLength); got != "" {
		t.Fatalf("Content-Length %q after the headers were sent", got)
	}
}

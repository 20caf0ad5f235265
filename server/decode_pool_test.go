package server

import (
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/labstack/echo/v4"
)

// closeCounter is a request body that counts its Close calls.
type closeCounter struct {
	io.Reader
	closes int
}

func (b *closeCounter) Close() error { b.closes++; return nil }

// TestReadPooledBodyCloses: a body read to its end is closed, so that
// net/http does not read what is left of it again after the handler.
func TestReadPooledBodyCloses(t *testing.T) {
	body := &closeCounter{Reader: strings.NewReader(`{"input":"hi"}`)}
	req := httptest.NewRequest(http.MethodPost, "/v1/agent/run", nil)
	req.Body, req.ContentLength = body, 14
	c := echo.New().NewContext(req, httptest.NewRecorder())
	buf, err := readPooledBody(c)
	if err != nil {
		t.Fatal(err)
	}
	defer releaseBody(buf)
	if buf.String() != `{"input":"hi"}` || body.closes != 1 {
		t.Fatalf("read %q, body closed %d times; want the whole body and 1", buf.String(), body.closes)
	}
}

package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"time"
)

// client talks to the server under test with a keep-alive pool sized to
// the number of load clients.
type client struct {
	base string
	http *http.Client
}

func newClient(base string, clients int) *client {
	tr := &http.Transport{MaxIdleConns: clients * 2, MaxIdleConnsPerHost: clients * 2, IdleConnTimeout: time.Minute}
	return &client{base: base, http: &http.Client{Transport: tr, Timeout: 60 * time.Second}}
}

func (c *client) waitHealthy(limit time.Duration) error {
	deadline := time.Now().Add(limit)
	for {
		resp, err := c.http.Get(c.base + "/health")
		if err == nil {
			resp.Body.Close()
			if resp.StatusCode == 200 {
				return nil
			}
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("server at %s did not become healthy: %v", c.base, err)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// httpError is a non-2xx answer.
type httpError struct {
	status int
	body   string
}

func (e *httpError) Error() string {
	b := e.body
	if len(b) > 120 {
		b = b[:120]
	}
	return fmt.Sprintf("HTTP %d: %s", e.status, strings.TrimSpace(b))
}

// send does one request; body is JSON-encoded unless it is []byte.
func (c *client) send(method, url string, body any, contentType string) (*http.Response, error) {
	var rd io.Reader
	switch b := body.(type) {
	case nil:
	case []byte:
		rd = bytes.NewReader(b)
	default:
		j, err := json.Marshal(b)
		if err != nil {
			return nil, err
		}
		rd = bytes.NewReader(j)
	}
	if strings.HasPrefix(url, "/") {
		url = c.base + url
	}
	req, err := http.NewRequest(method, url, rd)
	if err != nil {
		return nil, err
	}
	req.Header.Set("Authorization", "Bearer "+adminKey)
	req.Header.Set("Content-Type", contentType)
	resp, err := c.http.Do(req)
	if err != nil {
		return nil, err
	}
	if resp.StatusCode/100 != 2 {
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		return nil, &httpError{resp.StatusCode, string(b)}
	}
	return resp, nil
}

// json does a JSON request and decodes the answer into out (when non-nil).
func (c *client) json(method, url string, body, out any) error {
	resp, err := c.send(method, url, body, "application/json")
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	if out == nil {
		_, err = io.Copy(io.Discard, resp.Body)
		return err
	}
	return json.NewDecoder(resp.Body).Decode(out)
}

// stream posts a streaming run and reads the SSE body to its end; an
// error event or a missing [DONE] is an error.
func (c *client) stream(url string, body any) error {
	resp, err := c.send("POST", url, body, "application/json")
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	sc := bufio.NewScanner(resp.Body)
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	content := 0
	for sc.Scan() {
		line := sc.Text()
		data, ok := strings.CutPrefix(line, "data: ")
		if !ok {
			continue
		}
		if data == "[DONE]" {
			if content == 0 {
				return fmt.Errorf("stream ended without content")
			}
			return nil
		}
		if strings.Contains(data, `"error"`) {
			return fmt.Errorf("error event: %.120s", data)
		}
		content++
	}
	if err := sc.Err(); err != nil {
		return err
	}
	return fmt.Errorf("stream ended without [DONE]")
}

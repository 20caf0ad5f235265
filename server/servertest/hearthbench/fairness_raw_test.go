package main

import (
	"bufio"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"
)

// The raw fake answers a chat completion net/http reads as one, after its
// delay, on a kept connection.
func TestRawUpstreamAnswersAChatCompletion(t *testing.T) {
	u, err := startRawUpstream(20 * time.Millisecond)
	if err != nil {
		t.Fatal(err)
	}
	defer u.Close()
	for range 2 {
		start := time.Now()
		resp, err := http.Post(u.BaseURL()+"/chat/completions", "application/json", strings.NewReader(`{"model":"gpt-4o-mini"}`))
		if err != nil {
			t.Fatal(err)
		}
		var out struct {
			Choices []struct {
				Message struct{ Content string }
			}
		}
		err = json.NewDecoder(resp.Body).Decode(&out)
		resp.Body.Close()
		if err != nil || resp.StatusCode != 200 || len(out.Choices) != 1 || out.Choices[0].Message.Content != gatewayReply {
			t.Fatalf("%d %+v %v", resp.StatusCode, out, err)
		}
		if d := time.Since(start); d < 20*time.Millisecond {
			t.Fatalf("answered after %v, before the delay", d)
		}
	}
}

// readRawHead takes the status and Content-Length and refuses a message
// it could not frame.
func TestReadRawHead(t *testing.T) {
	var status int
	n, err := readRawHead(bufio.NewReader(strings.NewReader("HTTP/1.1 429 Too Many Requests\r\ncontent-length: 12\r\n\r\n")), &status)
	if err != nil || n != 12 || status != 429 {
		t.Fatalf("%d %d %v", n, status, err)
	}
	_, err = readRawHead(bufio.NewReader(strings.NewReader("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n")), &status)
	if !errors.Is(err, errRawFraming) {
		t.Fatalf("chunked: %v", err)
	}
	_, err = readRawHead(bufio.NewReader(strings.NewReader("HTTP/1.1 200 OK\r\n")), &status)
	if !errors.Is(err, io.EOF) {
		t.Fatalf("cut short: %v", err)
	}
}

// The raw flood counts answers by status while counting is on.
func TestRawFloodCountsAnswers(t *testing.T) {
	u, err := startRawUpstream(0)
	if err != nil {
		t.Fatal(err)
	}
	defer u.Close()
	fl, err := startRawFlood(u.BaseURL()+"/chat/completions", "k", []byte(`{}`), 4)
	if err != nil {
		t.Fatal(err)
	}
	fl.count(true)
	// However slow the machine, answers arrive: wait for some.
	for deadline := time.Now().Add(10 * time.Second); fl.n[0].Load() < 10 && time.Now().Before(deadline); {
		time.Sleep(10 * time.Millisecond)
	}
	c := fl.count(false)
	fl.stop()
	if c[0] == 0 || c[1]+c[2]+c[3] != 0 {
		t.Fatalf("counts %v: want 200s only", c)
	}
}

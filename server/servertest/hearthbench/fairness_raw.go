package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"net/url"
	"strconv"
	"sync"
	"time"
)

// Raw load (-fair-raw): the flood's clients and the fake upstream speak
// HTTP/1.1 over plain sockets with canned bytes, at a fraction of
// net/http's CPU per request. On a small machine the clients and the
// fake then leave the client cores idle enough that their Go scheduler
// sees the network at once, and the quiet key's p99 measures the server,
// not the load generator: with net/http clients and fake at full speed
// on one core, the quiet key's request waits several milliseconds in the
// client process alone (the fake answers late, the client reads late).
// The quiet key's clients stay net/http, as real clients are.

// rawUpstream is a fake OpenAI chat host on loopback that answers every
// request with one canned chat completion after delay.
type rawUpstream struct {
	ln     net.Listener
	answer []byte
	delay  time.Duration
	wg     sync.WaitGroup
	mu     sync.Mutex
	conns  map[net.Conn]bool
}

func startRawUpstream(delay time.Duration) (*rawUpstream, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	body, _ := json.Marshal(map[string]any{
		"id": "chatcmpl-raw", "object": "chat.completion", "created": 1, "model": "gpt-4o-mini",
		"choices": []map[string]any{{"index": 0, "message": map[string]any{"role": "assistant", "content": gatewayReply}, "finish_reason": "stop"}},
		"usage":   map[string]any{"prompt_tokens": 12, "completion_tokens": 18, "total_tokens": 30}})
	u := &rawUpstream{ln: ln, delay: delay, conns: map[net.Conn]bool{},
		answer: fmt.Appendf(nil, "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: %d\r\n\r\n%s", len(body), body)}
	u.wg.Go(u.accept)
	return u, nil
}

// BaseURL is the host's API root.
func (u *rawUpstream) BaseURL() string { return "http://" + u.ln.Addr().String() + "/v1" }

func (u *rawUpstream) accept() {
	for {
		c, err := u.ln.Accept()
		if err != nil {
			return
		}
		u.mu.Lock()
		u.conns[c] = true
		u.mu.Unlock()
		u.wg.Go(func() {
			defer func() {
				c.Close()
				u.mu.Lock()
				delete(u.conns, c)
				u.mu.Unlock()
			}()
			br := bufio.NewReaderSize(c, 16<<10)
			for {
				n, err := readRawHead(br, nil)
				if err != nil {
					return
				}
				if _, err := br.Discard(n); err != nil {
					return
				}
				if u.delay > 0 {
					time.Sleep(u.delay)
				}
				if _, err := c.Write(u.answer); err != nil {
					return
				}
			}
		})
	}
}

// Close stops the host and cuts its connections.
func (u *rawUpstream) Close() {
	u.ln.Close()
	u.mu.Lock()
	for c := range u.conns {
		c.Close()
	}
	u.mu.Unlock()
	u.wg.Wait()
}

var errRawFraming = errors.New("raw: a message without Content-Length")

// readRawHead reads a message head from br and returns its
// Content-Length; status, when not nil, gets the status code of a
// response's first line. Chunked or unframed messages are refused.
func readRawHead(br *bufio.Reader, status *int) (int, error) {
	n, first := -1, true
	for {
		line, err := br.ReadSlice('\n')
		if err != nil {
			return 0, err
		}
		line = bytes.TrimRight(line, "\r\n")
		if first {
			first = false
			if status != nil {
				if len(line) < 12 {
					return 0, fmt.Errorf("raw: status line %q", line)
				}
				*status, _ = strconv.Atoi(string(line[9:12]))
			}
			continue
		}
		if len(line) == 0 {
			if n < 0 {
				return 0, errRawFraming
			}
			return n, nil
		}
		if k, v, ok := bytes.Cut(line, []byte(":")); ok && bytes.EqualFold(bytes.TrimSpace(k), []byte("Content-Length")) {
			n, err = strconv.Atoi(string(bytes.TrimSpace(v)))
			if err != nil {
				return 0, err
			}
		}
	}
}

// startRawFlood starts clients that each send the same request over and
// over on a connection of their own (a new one after any error),
// counting answers by status while counting is on.
func startRawFlood(rawURL, key string, body []byte, clients int) (*flood, error) {
	u, err := url.Parse(rawURL)
	if err != nil {
		return nil, err
	}
	req := fmt.Appendf(nil, "POST %s HTTP/1.1\r\nHost: %s\r\nAuthorization: Bearer %s\r\nContent-Type: application/json\r\nContent-Length: %d\r\n\r\n%s",
		u.RequestURI(), u.Host, key, len(body), body)
	fl := &flood{}
	for range clients {
		fl.wg.Go(func() {
			var c net.Conn
			var br *bufio.Reader
			for !fl.done.Load() {
				if c == nil {
					var err error
					if c, err = net.Dial("tcp", u.Host); err != nil {
						fl.record(0)
						time.Sleep(10 * time.Millisecond)
						continue
					}
					br = bufio.NewReaderSize(c, 16<<10)
				}
				var status int
				_, err := c.Write(req)
				var n int
				if err == nil {
					n, err = readRawHead(br, &status)
				}
				if err == nil {
					_, err = br.Discard(n)
				}
				if err != nil {
					c.Close()
					c, status = nil, 0
				}
				fl.record(status)
			}
			if c != nil {
				c.Close()
			}
		})
	}
	return fl, nil
}

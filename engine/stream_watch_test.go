package engine

import (
	"context"
	"errors"
	"fmt"
	"io"
	"testing"
)

// sliceStream yields its chunks, then err (io.EOF when nil).
type sliceStream struct {
	chunks []*ChatChunk
	err    error
	closed bool
}

func (s *sliceStream) Recv() (*ChatChunk, error) {
	if len(s.chunks) == 0 {
		if s.err != nil {
			return nil, s.err
		}
		return nil, io.EOF
	}
	ch := s.chunks[0]
	s.chunks = s.chunks[1:]
	return ch, nil
}

func (s *sliceStream) Close() error { s.closed = true; return nil }

// TestWatchedStream: every chunk is seen, and the end is reported once:
// nil at io.EOF, the stream's error, or closeErr on an early Close.
func TestWatchedStream(t *testing.T) {
	boom := errors.New("boom")
	cases := []struct {
		name    string
		err     error
		recvs   int
		wantEnd error
	}{
		{"to the end", nil, 4, nil},
		{"stream error", boom, 4, boom},
		{"closed early", nil, 1, context.Canceled},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			next := &sliceStream{chunks: []*ChatChunk{{ID: "a"}, {ID: "b"}}, err: tc.err}
			var seen, ends []string
			var got error
			w := &watchedStream{next: next, closeErr: context.Canceled, hooks: funcHooks{
				onChunk: func(ch *ChatChunk) { seen = append(seen, ch.ID) },
				onEnd:   func(err error) { got = err; ends = append(ends, fmt.Sprint(err)) }}}
			for range tc.recvs {
				w.Recv()
			}
			if err := w.Close(); err != nil || !next.closed {
				t.Fatalf("close: %v, closed %v", err, next.closed)
			}
			w.Close()
			if len(ends) != 1 || !errors.Is(got, tc.wantEnd) || (tc.wantEnd == nil && got != nil) {
				t.Fatalf("ends %q, want one %v", ends, tc.wantEnd)
			}
			if want := min(tc.recvs, 2); len(seen) != want {
				t.Fatalf("seen %q, want %d chunks", seen, want)
			}
		})
	}
}

// funcHooks are streamHooks made of two functions.
type funcHooks struct {
	onChunk func(*ChatChunk)
	onEnd   func(error)
}

func (h funcHooks) observe(ch *ChatChunk) { h.onChunk(ch) }
func (h funcHooks) finish(err error)      { h.onEnd(err) }

package providers

import (
	"bufio"
	"bytes"
	"io"
	"sync"
)

// sseReader reads Server-Sent Events. It keeps one reusable data buffer:
// the slices it returns are valid until the next call.
type sseReader struct {
	r     *bufio.Reader
	data  []byte
	event []byte
	line  []byte
}

var bufioPool = sync.Pool{New: func() any { return bufio.NewReaderSize(nil, 16<<10) }}

func newSSEReader(r io.Reader) *sseReader {
	s := &sseReader{}
	s.init(r, make([]byte, 0, sseDataSize))
	return s
}

// sseDataSize is the first capacity of an event's data buffer.
const sseDataSize = 1024

// init readies a zero reader to read r, with data as its data buffer.
func (s *sseReader) init(r io.Reader, data []byte) {
	br := bufioPool.Get().(*bufio.Reader)
	br.Reset(r)
	s.r, s.data = br, data
}

// release returns the bufio.Reader to the pool.
func (s *sseReader) release() {
	if s.r != nil {
		s.r.Reset(nil)
		bufioPool.Put(s.r)
		s.r = nil
	}
}

// next returns the next event's name (empty when absent) and data (several
// data lines joined by '\n'). Comments and id/retry fields are skipped. At
// the end of the body it returns io.EOF; an event cut off by the end of the
// body is still returned first.
func (s *sseReader) next() (event, data []byte, err error) {
	if s.r == nil {
		return nil, nil, io.EOF
	}
	s.data = s.data[:0]
	s.event = s.event[:0]
	hasData := false
	for {
		line, err := s.readLine()
		if err != nil {
			if err == io.EOF && hasData {
				return s.event, s.data, nil
			}
			return nil, nil, err
		}
		if len(line) == 0 {
			if hasData {
				return s.event, s.data, nil
			}
			continue
		}
		if line[0] == ':' {
			continue
		}
		field, value := line, []byte(nil)
		if i := bytes.IndexByte(line, ':'); i >= 0 {
			field, value = line[:i], line[i+1:]
			if len(value) > 0 && value[0] == ' ' {
				value = value[1:]
			}
		}
		switch string(field) {
		case "data":
			if hasData {
				s.data = append(s.data, '\n')
			}
			s.data = append(s.data, value...)
			hasData = true
		case "event":
			s.event = append(s.event[:0], value...)
		}
	}
}

// readLine returns one line without its terminator (\n or \r\n; a bare \r
// is not a line end), growing past the bufio buffer when needed.
func (s *sseReader) readLine() ([]byte, error) {
	line, err := s.r.ReadSlice('\n')
	if err == bufio.ErrBufferFull {
		s.line = append(s.line[:0], line...)
		for err == bufio.ErrBufferFull {
			line, err = s.r.ReadSlice('\n')
			s.line = append(s.line, line...)
		}
		line = s.line
	}
	if err != nil && (err != io.EOF || len(line) == 0) {
		return nil, err
	}
	line = bytes.TrimRight(line, "\r\n")
	return line, nil
}

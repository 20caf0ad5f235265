package providers

import "bytes"

// complete reports whether the reader's buffer already holds a whole event
// that next would return without reading from the body: a "data" line
// followed by a blank line, before which only comments, other fields and
// blank lines may come. It reads nothing; lines longer than the buffer and
// an event that only the end of the body would end count as incomplete.
func (s *sseReader) complete() bool {
	if s.r == nil {
		return false
	}
	buf, _ := s.r.Peek(s.r.Buffered())
	hasData := false
	for {
		i := bytes.IndexByte(buf, '\n')
		if i < 0 {
			return false
		}
		line := bytes.TrimRight(buf[:i+1], "\r\n")
		buf = buf[i+1:]
		if len(line) == 0 {
			if hasData {
				return true
			}
			continue
		}
		if line[0] == ':' {
			continue
		}
		field := line
		if j := bytes.IndexByte(line, ':'); j >= 0 {
			field = line[:j]
		}
		if string(field) == "data" {
			hasData = true
		}
	}
}

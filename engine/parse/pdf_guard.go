package parse

import (
	"bytes"
	"io"

	"github.com/dslipak/pdf"
)

// dslipak/pdf v0.0.2 does not fail on a truncated structure: its lexer
// returns '\n' forever at the end of its input, so an unterminated
// dictionary, array or string loops without end, which no recover can stop.
// Two guards keep those inputs away from it.
//
// pdfSource hands the library a file that never ends: reads past the real
// data panic (recovered as a corrupt file or page) instead of reaching the
// library's endless end-of-input. The file's last 100 bytes are repeated at
// the far end of the virtual size, where the library looks for startxref.
//
// Content streams and ToUnicode maps, which the library lexes from streams
// with a natural end, are first checked by pdfBalanced.
//
// Known gap: objects inside compressed object streams and xref streams are
// lexed by the library from such streams too, out of our reach; a corrupt
// one can still hang (testdata/docs/objstm-hang.pdf does). The time limit
// that stops it is enforced from outside: the server parses PDFs in a child
// process that is killed after HEARTH_PARSE_TIMEOUT (package sandbox).
//
// pdfSource also counts reads: a cycle the library does not detect, such
// as a trailer /Prev chain that loops, keeps reading, and stops with a
// corrupt-file error once the budget (generous for any real file) is spent.
type pdfSource struct {
	data  []byte
	tail  []byte
	size  int64
	reads int // ReadAt calls left
}

// pdfPastEnd is the panic value of a read beyond the real data.
type pdfPastEnd struct{}

const pdfTail = 100 // the library's end-of-file window

func newPDFSource(data []byte) *pdfSource {
	return &pdfSource{data: data, tail: data[len(data)-pdfTail:], size: int64(len(data)) + 1<<40,
		reads: 500_000 + len(data)/16}
}

func (s *pdfSource) ReadAt(p []byte, off int64) (int, error) {
	if s.reads--; s.reads < 0 {
		panic(pdfAbort{errPDFCorrupt()})
	}
	if start := s.size - pdfTail; off >= start {
		if off >= s.size {
			return 0, io.EOF
		}
		n := copy(p, s.tail[off-start:])
		if n < len(p) {
			return n, io.EOF
		}
		return n, nil
	}
	if off < 0 || off >= int64(len(s.data)) {
		panic(pdfPastEnd{})
	}
	n := copy(p, s.data[off:])
	if n < len(p) {
		return n, io.EOF
	}
	return n, nil
}

// pdfStreamSafe reports whether a stream can be given to pdf.Interpret:
// it decodes, and its strings, arrays and dictionaries are all closed.
func pdfStreamSafe(v pdf.Value) bool {
	if v.Kind() != pdf.Stream {
		return false
	}
	data, err := io.ReadAll(io.LimitReader(v.Reader(), 256<<20))
	return err == nil && pdfBalanced(data)
}

// pdfBalanced lexes a content stream just enough to tell whether every
// literal string, array and dictionary is closed. Comments and inline image
// data (between ID and EI) are skipped.
func pdfBalanced(b []byte) bool {
	arrays, dicts := 0, 0
	for i := 0; i < len(b); i++ {
		switch c := b[i]; c {
		case '%':
			for i < len(b) && b[i] != '\n' && b[i] != '\r' {
				i++
			}
		case '(':
			depth := 1
			for i++; i < len(b) && depth > 0; i++ {
				switch b[i] {
				case '\\':
					i++
				case '(':
					depth++
				case ')':
					depth--
				}
			}
			if depth > 0 {
				return false
			}
			i--
		case '<':
			if i+1 < len(b) && b[i+1] == '<' {
				dicts++
				i++
			}
		case '>':
			if i+1 < len(b) && b[i+1] == '>' {
				dicts = max(0, dicts-1)
				i++
			}
		case '[':
			arrays++
		case ']':
			arrays = max(0, arrays-1)
		case 'I':
			// Inline image: "ID" then binary data up to "EI".
			if i > 0 && isPDFSpace(b[i-1]) && i+2 < len(b) && b[i+1] == 'D' && isPDFSpace(b[i+2]) {
				end := bytes.Index(b[i+3:], []byte("EI"))
				if end < 0 {
					return false
				}
				i += 3 + end + 1
			}
		}
	}
	return arrays == 0 && dicts == 0
}

func isPDFSpace(c byte) bool {
	return c == ' ' || c == '\n' || c == '\r' || c == '\t' || c == '\f' || c == 0
}

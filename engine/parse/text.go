package parse

import (
	"bytes"
	"strings"
	"unicode/utf16"
	"unicode/utf8"
)

// parseText handles text/plain: plain text and code files. The text is at
// most 1.5 times the input (UTF-16 to UTF-8), so it is checked against max
// only at the end.
func parseText(data []byte, max int) (string, error) {
	text, err := decodeText(data)
	if err != nil {
		return "", err
	}
	if strings.TrimSpace(text) == "" {
		return "", docError("document contains no text")
	}
	return checkOutput(text, max)
}

// decodeText turns text bytes into a valid UTF-8 string with "\n" line
// ends. A UTF-8 byte order mark is dropped; UTF-16 with a byte order mark
// (as Windows Notepad writes it) is converted. Anything else must be UTF-8,
// and data that looks binary is refused.
func decodeText(data []byte) (string, error) {
	if len(data) == 0 {
		return "", docError("document is empty")
	}
	switch {
	case bytes.HasPrefix(data, []byte{0xEF, 0xBB, 0xBF}):
		data = data[3:]
	case bytes.HasPrefix(data, []byte{0xFF, 0xFE}), bytes.HasPrefix(data, []byte{0xFE, 0xFF}):
		data = decodeUTF16(data)
	}
	if len(data) == 0 {
		return "", docError("document is empty")
	}
	if bytes.IndexByte(data, 0) >= 0 {
		return "", docError("document looks binary (it contains NUL bytes), not text; send binary formats with their own content type")
	}
	if !utf8.Valid(data) {
		return "", docError("document is not valid UTF-8 text; save it as UTF-8 and upload it again")
	}
	if controlHeavy(data) {
		return "", docError("document looks binary (too many control characters), not text")
	}
	return normaliseNewlines(string(data)), nil
}

// decodeUTF16 converts UTF-16 with a byte order mark to UTF-8. Unpaired
// surrogates become U+FFFD.
func decodeUTF16(data []byte) []byte {
	big := data[0] == 0xFE
	data = data[2:]
	units := make([]uint16, len(data)/2)
	for i := range units {
		if big {
			units[i] = uint16(data[2*i])<<8 | uint16(data[2*i+1])
		} else {
			units[i] = uint16(data[2*i+1])<<8 | uint16(data[2*i])
		}
	}
	return []byte(string(utf16.Decode(units)))
}

// controlHeavy reports whether more than 1 in 20 of the first 8 KiB are C0
// control bytes other than tab, newline, carriage return, form feed and
// escape: the mark of a binary file that happens to be valid UTF-8.
func controlHeavy(data []byte) bool {
	sample := data[:min(len(data), 8<<10)]
	n := 0
	for _, c := range sample {
		if c < 0x20 && c != '\t' && c != '\n' && c != '\r' && c != '\f' && c != 0x1b || c == 0x7f {
			n++
		}
	}
	return n*20 > len(sample)
}

// normaliseNewlines turns "\r\n" and lone "\r" into "\n".
func normaliseNewlines(s string) string {
	if strings.IndexByte(s, '\r') < 0 {
		return s
	}
	s = strings.ReplaceAll(s, "\r\n", "\n")
	return strings.ReplaceAll(s, "\r", "\n")
}

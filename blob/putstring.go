package blob

// plainJSONString reports whether encoding/json writes s as itself
// between quotes: printable ASCII with nothing it escapes (quote,
// backslash, and the <, > and & it escapes for HTML). Index entries are
// stored as the empty string this way without a trip through
// json.Marshal; any other string still goes through it.
func plainJSONString(s string) bool {
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case c < 0x20 || c >= 0x80:
			return false
		case c == '"' || c == '\\' || c == '<' || c == '>' || c == '&':
			return false
		}
	}
	return true
}

package parse

import (
	"strconv"
	"strings"
	"unicode/utf16"
)

// RTF (https://www.biblioscape.com/rtf15_spec.htm, 1.9.1 for \u) is read by
// a single pass over its control words: text, \par, \line, \tab, \cell and
// \row make the text; \'hh bytes are Windows-1252; \uN characters skip the
// \ucN fallback characters after them; \outlinelevelN paragraphs become
// markdown headings. Font, colour and style tables, document info,
// pictures, objects, headers, footers and every \* destination are
// skipped. The text is linear in the input, and stops at the output limit.

const rtfMaxDepth = 1000

// rtfSkipped are the destinations whose content is never text.
var rtfSkipped = map[string]bool{
	"fonttbl": true, "colortbl": true, "stylesheet": true, "info": true, "pict": true, "object": true,
	"header": true, "headerl": true, "headerr": true, "headerf": true, "footer": true, "footerl": true,
	"footerr": true, "footerf": true, "listtable": true, "listoverridetable": true, "revtbl": true,
	"rsidtbl": true, "xmlnstbl": true, "themedata": true, "colorschememapping": true, "datastore": true,
	"latentstyles": true, "fldinst": true, "nonshppict": true, "shpinst": true, "filetbl": true,
	"generator": true, "pgdsctbl": true, "footnote": true, "annotation": true, "atnid": true, "atnauthor": true,
}

// rtfSymbols are control words that stand for one character.
var rtfSymbols = map[string]string{
	"tab": "\t", "line": "\n", "emdash": "—", "endash": "–", "bullet": "•", "lquote": "‘", "rquote": "’",
	"ldblquote": "“", "rdblquote": "”", "emspace": " ", "enspace": " ", "qmspace": " ",
}

// cp1252 maps the bytes 0x80-0x9F of Windows-1252 (the rest are Latin-1).
var cp1252 = [32]rune{'€', '\ufffd', '‚', 'ƒ', '„', '…', '†', '‡', 'ˆ', '‰', 'Š', '‹', 'Œ', '\ufffd', 'Ž', '\ufffd',
	'\ufffd', '‘', '’', '“', '”', '•', '–', '—', '˜', '™', 'š', '›', 'œ', '\ufffd', 'ž', 'Ÿ'}

type rtfGroup struct {
	skip bool
	uc   int
}

func parseRTF(data []byte, limit int) (string, error) {
	if !strings.HasPrefix(string(data[:min(len(data), 5)]), `{\rtf`) {
		return "", docError("could not read rtf: the file does not start with {\\rtf")
	}
	z := &zipDoc{kind: "rtf", out: &capped{max: limit}}
	p := &paragraphs{z: z}
	stack := []rtfGroup{{uc: 1}}
	pendingSkip := 0 // fallback characters still to skip after \uN
	var hi rune      // a UTF-16 high surrogate waiting for its pair
	afterTable := false
	emit := func(s string) error {
		if stack[len(stack)-1].skip {
			return nil
		}
		if pendingSkip > 0 {
			pendingSkip--
			return nil
		}
		if s < " " && s != "\t" && s != "\n" {
			return nil // control characters are not text
		}
		return p.text(s)
	}
	for i := 0; i < len(data); {
		c := data[i]
		switch c {
		case '{':
			if len(stack) >= rtfMaxDepth {
				return "", docError("could not read rtf: groups nest deeper than %d", rtfMaxDepth)
			}
			stack = append(stack, stack[len(stack)-1])
			i++
			if i+1 < len(data) && data[i] == '\\' && data[i+1] == '*' {
				stack[len(stack)-1].skip = true
			}
			continue
		case '}':
			if len(stack) > 1 {
				stack = stack[:len(stack)-1]
			}
			pendingSkip = 0
			i++
			continue
		case '\r', '\n':
			i++
			continue
		case '\\':
		default:
			// Literal bytes up to the next special character, as Windows-1252.
			j := i
			for j < len(data) && data[j] != '\\' && data[j] != '{' && data[j] != '}' && data[j] != '\r' && data[j] != '\n' {
				j++
			}
			for _, b := range data[i:j] {
				if err := emit(string(cp1252Rune(b))); err != nil {
					return "", err
				}
			}
			i = j
			continue
		}
		// A control word or symbol.
		i++
		if i >= len(data) {
			break
		}
		c = data[i]
		if !isASCIILetter(c) {
			i++
			switch c {
			case '\'':
				if i+2 <= len(data) {
					if v, err := strconv.ParseUint(string(data[i:i+2]), 16, 8); err == nil {
						if err := emit(string(cp1252Rune(byte(v)))); err != nil {
							return "", err
						}
						i += 2
					}
				}
			case '~':
				if err := emit(" "); err != nil {
					return "", err
				}
			case '_':
				if err := emit("-"); err != nil {
					return "", err
				}
			case '\\', '{', '}':
				if err := emit(string(c)); err != nil {
					return "", err
				}
			}
			continue
		}
		j := i
		for j < len(data) && j-i < 32 && isASCIILetter(data[j]) {
			j++
		}
		word := string(data[i:j])
		k := j
		if k < len(data) && data[k] == '-' {
			k++
		}
		for k < len(data) && k-j < 10 && data[k] >= '0' && data[k] <= '9' {
			k++
		}
		arg, hasArg := 0, k > j && data[k-1] != '-'
		if hasArg {
			arg, _ = strconv.Atoi(string(data[j:k]))
		}
		if k < len(data) && data[k] == ' ' {
			k++
		}
		i = k
		g := &stack[len(stack)-1]
		switch {
		case rtfSkipped[word]:
			g.skip = true
		case word == "uc" && hasArg:
			g.uc = min(max(arg, 0), 10)
		case word == "u" && hasArg:
			if g.skip {
				continue
			}
			r := rune(int16(arg))
			if r < 0 {
				r += 65536
			}
			s := ""
			switch {
			case utf16.IsSurrogate(r) && r < 0xdc00:
				hi = r
			case utf16.IsSurrogate(r):
				if hi != 0 {
					s = string(utf16.DecodeRune(hi, r))
				}
				hi = 0
			default:
				s = string(r)
			}
			pendingSkip = 0
			if s >= " " || s == "\t" {
				if err := p.text(s); err != nil {
					return "", err
				}
			}
			pendingSkip = g.uc
		case g.skip:
		case word == "pard":
			p.prefix = ""
		case word == "outlinelevel" && hasArg:
			p.prefix = strings.Repeat("#", min(max(arg+1, 1), 6)) + " "
		case word == "intbl":
			p.inTable = 1
		case word == "par":
			if afterTable && p.inTable == 0 {
				afterTable = false
				if err := z.write("\n"); err != nil {
					return "", err
				}
			}
			if err := p.endParagraph(); err != nil {
				return "", err
			}
		case word == "cell":
			if err := p.endParagraph(); err != nil {
				return "", err
			}
			if err := p.endCell(); err != nil {
				return "", err
			}
		case word == "row":
			if err := p.endRow(); err != nil {
				return "", err
			}
			p.inTable, afterTable = 0, true
		default:
			if s, ok := rtfSymbols[word]; ok {
				if err := emit(s); err != nil {
					return "", err
				}
			}
		}
	}
	if p.para.Len() > 0 {
		if err := p.endParagraph(); err != nil {
			return "", err
		}
	}
	return z.result()
}

func isASCIILetter(c byte) bool { return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' }

func cp1252Rune(b byte) rune {
	if b >= 0x80 && b < 0xa0 {
		return cp1252[b-0x80]
	}
	return rune(b)
}

package guard

import "regexp/syntax"

// unboundedLen is the hold-back assumed for an operator pattern without
// an upper bound on its length.
const unboundedLen = 64

// patternShape returns the most bytes an operator pattern can match
// (capped at 256, unboundedLen when it has no bound) and, when the
// pattern is bounded and every match must contain a byte of a known set,
// that set: the pattern then runs only on windows around those bytes.
func patternShape(src string) (int, *[256]bool) {
	re, err := syntax.Parse(src, syntax.Perl)
	if err != nil {
		return unboundedLen, nil
	}
	re = re.Simplify()
	n := syntaxMax(re)
	if n < 0 || n > 256 {
		return unboundedLen, nil
	}
	return n, required(re)
}

// required returns a set of bytes every match of re contains one of (nil:
// none is known). Only ASCII classes count.
func required(re *syntax.Regexp) *[256]bool {
	switch re.Op {
	case syntax.OpLiteral:
		if len(re.Rune) == 0 || re.Rune[0] > 127 || re.Flags&syntax.FoldCase != 0 {
			return nil
		}
		var t [256]bool
		t[re.Rune[0]] = true
		return &t
	case syntax.OpCharClass:
		var t [256]bool
		for i := 0; i+1 < len(re.Rune); i += 2 {
			if re.Rune[i+1] > 127 {
				return nil
			}
			for r := re.Rune[i]; r <= re.Rune[i+1]; r++ {
				t[r] = true
			}
		}
		return &t
	case syntax.OpCapture, syntax.OpPlus:
		return required(re.Sub[0])
	case syntax.OpRepeat:
		if re.Min > 0 {
			return required(re.Sub[0])
		}
	case syntax.OpConcat:
		var best *[256]bool
		for _, s := range re.Sub {
			if t := required(s); t != nil && (best == nil || count(t) < count(best)) {
				best = t
			}
		}
		return best
	case syntax.OpAlternate:
		var t [256]bool
		for _, s := range re.Sub {
			st := required(s)
			if st == nil {
				return nil
			}
			for i, v := range st {
				t[i] = t[i] || v
			}
		}
		return &t
	}
	return nil
}

func count(t *[256]bool) int {
	n := 0
	for _, v := range t {
		if v {
			n++
		}
	}
	return n
}

// syntaxMax is the longest match of a parsed expression in bytes (-1:
// unbounded).
func syntaxMax(re *syntax.Regexp) int {
	switch re.Op {
	case syntax.OpLiteral:
		n := 0
		for _, r := range re.Rune {
			n += len(string(r))
		}
		return n
	case syntax.OpCharClass, syntax.OpAnyChar, syntax.OpAnyCharNotNL:
		return 4
	case syntax.OpConcat, syntax.OpAlternate:
		n := 0
		for _, s := range re.Sub {
			m := syntaxMax(s)
			if m < 0 {
				return -1
			}
			if re.Op == syntax.OpConcat {
				n += m
			} else {
				n = max(n, m)
			}
		}
		return n
	case syntax.OpCapture:
		return syntaxMax(re.Sub[0])
	case syntax.OpQuest:
		return syntaxMax(re.Sub[0])
	case syntax.OpRepeat:
		m := syntaxMax(re.Sub[0])
		if m < 0 || re.Max < 0 {
			return -1
		}
		return m * re.Max
	case syntax.OpStar, syntax.OpPlus:
		return -1
	}
	return 0
}

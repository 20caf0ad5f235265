package guard

import "strings"

// luhn reports whether a digit string passes the Luhn checksum.
func luhn(d []byte) bool {
	sum, double := 0, false
	for i := len(d) - 1; i >= 0; i-- {
		n := int(d[i] - '0')
		if double {
			if n *= 2; n > 9 {
				n -= 9
			}
		}
		sum += n
		double = !double
	}
	return sum%10 == 0
}

// cardIssuer reports whether a digit string starts like a payment card of
// its length: Visa, Mastercard, American Express, Discover, JCB, Diners
// Club or UnionPay.
func cardIssuer(d []byte) bool {
	n := len(d)
	p2 := int(d[0]-'0')*10 + int(d[1]-'0')
	p4 := p2*100 + int(d[2]-'0')*10 + int(d[3]-'0')
	switch {
	case d[0] == '4':
		return n == 13 || n == 16 || n == 19
	case p2 >= 51 && p2 <= 55, p4 >= 2221 && p4 <= 2720:
		return n == 16
	case p2 == 34 || p2 == 37:
		return n == 15
	case p4 == 6011, p2 == 65, p4 >= 6440 && p4 <= 6499, p2 == 62:
		return n >= 16 && n <= 19
	case p4 >= 3528 && p4 <= 3589:
		return n >= 16 && n <= 19
	case p2 == 36 || p2 == 38 || p2 == 39 || (p4 >= 3000 && p4 <= 3059):
		return n >= 14 && n <= 19
	}
	return false
}

// cardGrouping reports whether digit groups look like a written card
// number: one run, groups of four (the last may be shorter), or the 4-6-5
// and 4-6-4 groupings of American Express and Diners Club.
func cardGrouping(groups []string) bool {
	if len(groups) == 1 {
		return true
	}
	if len(groups) == 3 && len(groups[0]) == 4 && len(groups[1]) == 6 && (len(groups[2]) == 5 || len(groups[2]) == 4) {
		return true
	}
	for i, g := range groups {
		if len(g) != 4 && (i != len(groups)-1 || len(g) > 4) {
			return false
		}
	}
	return true
}

// checkCard finds, among the digit groups of a candidate, consecutive
// groups that form a Luhn-valid card number of a known issuer.
func checkCard(text string, s, e int) (int, int, bool) {
	if s > 1 && (text[s-1] == '.' || text[s-1] == ',') && isDigit(text[s-2]) {
		return 0, 0, false
	}
	if e+1 < len(text) && (text[e] == '.' || text[e] == ',') && isDigit(text[e+1]) {
		return 0, 0, false
	}
	var starts, ends []int
	var groups []string
	for i := s; i < e; {
		j := i
		for j < e && isDigit(text[j]) {
			j++
		}
		starts, ends, groups = append(starts, i), append(ends, j), append(groups, text[i:j])
		i = j + 1
	}
	for i := 0; i < len(groups); i++ {
		for j := len(groups); j > i; j-- {
			d := digitsOf(text[starts[i]:ends[j-1]])
			if len(d) >= 13 && len(d) <= 19 && cardGrouping(groups[i:j]) && cardIssuer(d) && luhn(d) {
				return starts[i], ends[j-1], true
			}
		}
	}
	return 0, 0, false
}

// ibanLengths are the IBAN lengths of the countries that issue them most
// often; other countries must give 15 to 34 characters.
var ibanLengths = map[string]int{
	"AT": 20, "BE": 16, "BG": 22, "CH": 21, "CY": 28, "CZ": 24, "DE": 22, "DK": 18, "EE": 20, "ES": 24,
	"FI": 18, "FR": 27, "GB": 22, "GR": 27, "HR": 21, "HU": 28, "IE": 22, "IS": 26, "IT": 27, "LI": 21,
	"LT": 20, "LU": 20, "LV": 21, "MC": 27, "MT": 31, "NL": 18, "NO": 15, "PL": 28, "PT": 25, "RO": 24,
	"SE": 24, "SI": 19, "SK": 24, "SM": 27, "TR": 26, "UA": 29, "AE": 23, "SA": 24, "IL": 23, "BR": 29,
}

// ibanValid reports whether a compact IBAN has its country's length and
// passes the ISO 13616 mod-97 check.
func ibanValid(iban string) bool {
	if want, ok := ibanLengths[iban[:2]]; ok && len(iban) != want || len(iban) < 15 || len(iban) > 34 {
		return false
	}
	r := iban[4:] + iban[:4]
	rem := 0
	for i := 0; i < len(r); i++ {
		c := r[i]
		switch {
		case isDigit(c):
			rem = (rem*10 + int(c-'0')) % 97
		case c >= 'A' && c <= 'Z':
			v := int(c-'A') + 10
			rem = (rem*100 + v) % 97
		default:
			return false
		}
	}
	return rem == 1
}

// checkIBAN accepts the longest prefix of a candidate, ending at a group
// boundary, that is a valid IBAN.
func checkIBAN(text string, s, e int) (int, int, bool) {
	cand := text[s:e]
	for end := len(cand); end > 0; {
		if ibanValid(strings.ReplaceAll(cand[:end], " ", "")) {
			return s, s + end, true
		}
		sp := strings.LastIndexByte(cand[:end], ' ')
		if sp < 0 {
			break
		}
		end = sp
	}
	return 0, 0, false
}

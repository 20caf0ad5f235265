package engine

import (
	"bytes"
	"encoding/json"
	"math"
	"strconv"
)

// Spend counters are read and written by every batch of run records, so
// they encode and decode by hand: the bytes are those encoding/json
// writes, and anything else encoding/json accepts (keys in another order,
// spaces, a counter written by another release) is read through it.

// AppendJSON appends the counter as json.Marshal writes it.
func (s *Spend) AppendJSON(b []byte) ([]byte, error) {
	b = append(b, `{"tokens":`...)
	b = strconv.AppendInt(b, s.Tokens, 10)
	b = append(b, `,"nano_usd":`...)
	b = strconv.AppendInt(b, s.NanoUSD, 10)
	b = append(b, `,"requests":`...)
	b = strconv.AppendInt(b, s.Requests, 10)
	return append(b, '}'), nil
}

// DecodeJSON reads a counter; a shape other than json.Marshal's goes
// through encoding/json.
func (s *Spend) DecodeJSON(b []byte) error {
	if s.decodeFast(b) {
		return nil
	}
	*s = Spend{}
	return json.Unmarshal(b, (*spendFields)(s))
}

// spendFields has Spend's fields without its methods.
type spendFields Spend

func (s *Spend) decodeFast(b []byte) bool {
	var ok bool
	if b, ok = bytes.CutPrefix(b, []byte(`{"tokens":`)); !ok {
		return false
	}
	tokens, b, ok := cutJSONInt(b, ',')
	if !ok {
		return false
	}
	if b, ok = bytes.CutPrefix(b, []byte(`"nano_usd":`)); !ok {
		return false
	}
	nanos, b, ok := cutJSONInt(b, ',')
	if !ok {
		return false
	}
	if b, ok = bytes.CutPrefix(b, []byte(`"requests":`)); !ok {
		return false
	}
	requests, b, ok := cutJSONInt(b, '}')
	if !ok || len(b) != 0 {
		return false
	}
	*s = Spend{Tokens: tokens, NanoUSD: nanos, Requests: requests}
	return true
}

// cutJSONInt reads a decimal integer as strconv.AppendInt writes it (an
// optional minus, no leading zeros) followed by end, and returns what
// follows end.
func cutJSONInt(b []byte, end byte) (int64, []byte, bool) {
	i := 0
	if i < len(b) && b[i] == '-' {
		i++
	}
	digits := i
	for i < len(b) && b[i] >= '0' && b[i] <= '9' {
		i++
	}
	if i == digits || i-digits > 19 || (b[digits] == '0' && i-digits > 1) || i >= len(b) || b[i] != end {
		return 0, nil, false
	}
	var u uint64
	for _, c := range b[digits:i] {
		u = u*10 + uint64(c-'0') // 19 digits cannot overflow a uint64
	}
	if u > math.MaxInt64+uint64(digits) { // one more for a minus sign
		return 0, nil, false
	}
	n := int64(u)
	if digits == 1 {
		n = -n
	}
	return n, b[i+1:], true
}

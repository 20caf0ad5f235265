package server

import (
	"sync/atomic"
	"time"
)

// logStamp is the text of one second of the access log's clock as
// time.RFC3339Nano writes it: the date and time ("2006-01-02T15:04:05")
// and the zone ("Z", "+01:00"), which every line within that second in
// that location shares. plain is false for a year slog's handlers write
// otherwise (outside 0 to 9999).
type logStamp struct {
	sec   int64
	loc   *time.Location
	plain bool
	date  [len("2006-01-02T15:04:05")]byte
	zone  string
}

// logStamps keeps the last second's stamp, so that a line formats its
// date and zone once a second instead of once a line. It is a formatting
// cache of one process, read and replaced atomically: with several Hearth
// nodes each keeps its own, and nothing in it needs sharing.
type logStamps struct{ last atomic.Pointer[logStamp] }

// of returns t's stamp: the last one when t falls in its second and
// location, else a new one, kept for the next line.
func (c *logStamps) of(t time.Time) *logStamp {
	sec, loc := t.Unix(), t.Location()
	if s := c.last.Load(); s != nil && s.sec == sec && s.loc == loc {
		return s
	}
	s := &logStamp{sec: sec, loc: loc}
	if y := t.Year(); y >= 0 && y < 10000 {
		s.plain = true
		var room [40]byte
		b := t.AppendFormat(room[:0], "2006-01-02T15:04:05Z07:00")
		copy(s.date[:], b)
		s.zone = string(b[len(s.date):])
	}
	c.last.Store(s)
	return s
}

// appendMillis appends t (within s's second) as slog's text handler
// does: RFC 3339 with exactly three digits of milliseconds, truncated.
func (s *logStamp) appendMillis(b []byte, t time.Time) []byte {
	ms := t.Nanosecond() / 1e6
	b = append(b, s.date[:]...)
	b = append(b, '.', byte('0'+ms/100), byte('0'+ms/10%10), byte('0'+ms%10))
	return append(b, s.zone...)
}

// appendNano appends t (within s's second) as time.RFC3339Nano does:
// the nanoseconds without trailing zeros, and no fraction when they are
// zero.
func (s *logStamp) appendNano(b []byte, t time.Time) []byte {
	b = append(b, s.date[:]...)
	if ns := t.Nanosecond(); ns != 0 {
		var frac [10]byte
		frac[0] = '.'
		for i := 9; i > 0; i-- {
			frac[i] = byte('0' + ns%10)
			ns /= 10
		}
		n := 10
		for frac[n-1] == '0' {
			n--
		}
		b = append(b, frac[:n]...)
	}
	return append(b, s.zone...)
}

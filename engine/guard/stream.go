package guard

import (
	"strings"
	"unicode/utf8"
)

// StreamRedactor applies the output stage to an answer that arrives in
// pieces. It holds back only the tail that could still become a match:
// at most the longest match the stage's detectors can make (Guard.Hold),
// plus a match that is still growing at the end of what arrived, or that
// starts before the hold-back and ends inside it. Joined, its output
// equals Check on the whole answer.
type StreamRedactor struct {
	g   *Guard
	s   *compiledStage
	rep Sink
	// ctx is sent text kept in front of carry, the held tail.
	ctx, carry string
}

// Hold is the most bytes of an answer a stream holds back, besides a
// match that is still growing.
func (g *Guard) Hold() int {
	if g == nil {
		return 0
	}
	return g.hold
}

// Stream returns a redactor for one streamed answer (nil when the guard
// checks no PII on output: the stream then passes unchanged).
func (g *Guard) Stream(rep Sink) *StreamRedactor {
	if g == nil || len(g.stages[2].dets) == 0 {
		return nil
	}
	return &StreamRedactor{g: g, s: &g.stages[2], rep: rep}
}

// Write takes the next piece of the answer and returns the text that is
// safe to send now (possibly empty). A refuse action returns a *Refusal;
// nothing matched has been returned before it.
func (r *StreamRedactor) Write(piece string) (string, error) {
	base := len(r.ctx)
	buf := r.ctx + r.carry + piece
	cut := len(buf) - r.g.hold
	if cut-base < releaseStep {
		r.carry = buf[base:]
		return "", nil
	}
	spans, cands := r.scan(buf, base)
	for {
		next := cut
		// A candidate still growing at the end, or one crossing the cut,
		// is held back whole.
		for _, c := range cands {
			if c[0] < next && (c[1] >= len(buf) || c[1] > next) {
				next = c[0]
			}
		}
		for _, sp := range spans {
			if sp.s < next && sp.e > next {
				next = sp.s
			}
		}
		next = max(base, cutAt(buf, next, r.g.hold))
		if next == cut {
			break
		}
		cut = next
	}
	var emit []span
	for _, sp := range spans {
		if sp.e <= cut {
			emit = append(emit, sp)
		}
	}
	out, err := r.act(buf, base, cut, emit)
	if err != nil {
		return "", err
	}
	r.ctx, r.carry = buf[max(base, cut-ctxBytes):cut], buf[cut:]
	return out, nil
}

// releaseStep is the least text a Write releases: smaller pieces wait
// in the tail, so an answer streamed token by token is scanned once per
// step rather than once per token.
const releaseStep = 32

// ctxBytes is how much already-sent text a redactor keeps in front of
// the held tail, so checks that look at a match's neighbours see them.
const ctxBytes = 16

// Flush returns the held tail at the end of the answer.
func (r *StreamRedactor) Flush() (string, error) {
	base := len(r.ctx)
	buf := r.ctx + r.carry
	r.ctx, r.carry = "", ""
	if len(buf) == base {
		return "", nil
	}
	spans, _ := r.scan(buf, base)
	return r.act(buf, base, len(buf), spans)
}

// scan returns the validated matches of buf and the raw candidates of
// every detector (validated or not), which decide what is held back.
func (r *StreamRedactor) scan(buf string, base int) ([]span, [][2]int) {
	spans, all := findAll(r.s.dets, buf, len(buf), nil)
	cands := all[:0]
	for _, c := range all {
		if c[0] >= base {
			cands = append(cands, c)
		}
	}
	out := spans[:0]
	for _, sp := range spans {
		if sp.s >= base {
			out = append(out, sp)
		}
	}
	return out, cands
}

// act applies the stage's PII action to buf[from:to], whose matches are
// spans.
func (r *StreamRedactor) act(buf string, from, to int, spans []span) (string, error) {
	if len(spans) == 0 {
		return buf[from:to], nil
	}
	if r.s.piiAction == ActionRefuse {
		add(r.rep, r.s.name, "pii."+spans[0].d.kind, ActionRefuse, 1)
		return "", &Refusal{Stage: r.s.name, Rule: "pii." + spans[0].d.kind}
	}
	for _, sp := range spans {
		add(r.rep, r.s.name, "pii."+sp.d.kind, r.s.piiAction, 1)
	}
	if r.s.piiAction == ActionAnnotate {
		return buf[from:to], nil
	}
	for i := range spans {
		spans[i].s -= from
		spans[i].e -= from
	}
	return replace(buf[from:to], spans), nil
}

// cutAt moves a cut back to just after a whitespace byte, looking at most
// hold bytes back, so the held tail starts where a match may start; then
// onto a rune boundary.
func cutAt(buf string, cut, hold int) int {
	if cut <= 0 {
		return 0
	}
	lo := max(0, cut-hold)
	if i := strings.LastIndexAny(buf[lo:cut], " \t\n\r"); i >= 0 {
		return lo + i + 1
	}
	for cut > 0 && !utf8.RuneStart(buf[cut]) {
		cut--
	}
	return cut
}

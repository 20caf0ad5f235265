package guard

import (
	"context"
	"fmt"
	"regexp"
	"slices"
	"strings"
)

// Guard is a compiled policy: the detectors and rules of each stage.
type Guard struct {
	stages     [3]compiledStage
	rules      []rule
	threshold  float64
	classifier Classifier
	// hold is the most bytes a stream of the output stage holds back.
	hold int
}

type compiledStage struct {
	name      string
	dets      []*detector
	piiAction string
	injection string
}

type rule struct {
	name     string
	re       *regexp.Regexp
	score    float64
	triggers []string
}

// Classifier scores a text's likelihood of being a prompt injection or a
// jailbreak, from 0 to 1 (a local model behind an OpenAI-compatible API).
type Classifier interface {
	Classify(ctx context.Context, text string) (float64, error)
	// Threshold is the score at which the text counts as an injection.
	Threshold() float64
}

// Event is one guardrail action, recorded in the run log and counted in
// the metrics. It never holds the matched text.
type Event struct {
	Stage  string `json:"stage"`
	Rule   string `json:"rule"`
	Action string `json:"action"`
	Count  int    `json:"count"`
}

// Refusal is the error of a check whose action is refuse. Its message
// names the stage and the rule, never the matched text.
type Refusal struct {
	Stage string
	Rule  string
}

func (r *Refusal) Error() string {
	what := map[string]string{StageInput: "the request's input", StageContext: "the retrieved context", StageOutput: "the model's answer"}[r.Stage]
	return fmt.Sprintf("refused by the guardrail rule %s: %s matched it", r.Rule, what)
}

// Compile builds the Guard of a validated policy; c, when not nil, is the
// classifier injection checks also ask. A policy that checks nothing
// compiles to nil.
func Compile(p *Policy, c Classifier) (*Guard, error) {
	if p.Empty() {
		return nil, nil
	}
	if err := p.Validate("guard"); err != nil {
		return nil, err
	}
	g := &Guard{threshold: p.InjectionThreshold, classifier: c}
	if g.threshold == 0 {
		g.threshold = DefaultThreshold
	}
	var national []*detector
	for _, pt := range p.NationalIDs {
		re := regexp.MustCompile(pt.Pattern)
		n, need := patternShape(pt.Pattern)
		national = append(national, &detector{kind: KindNationalID + "." + pt.Name, label: "[NATIONAL_ID]", re: re, need: need, partial: n})
	}
	for i, s := range []*Stage{p.Input, p.Context, p.Output} {
		cs := compiledStage{name: []string{StageInput, StageContext, StageOutput}[i]}
		if s != nil {
			cs.piiAction, cs.injection = s.PIIAction, s.Injection
			if cs.piiAction == "" {
				cs.piiAction = ActionRedact
			}
			for _, k := range Kinds {
				if !contains(s.PII, k) {
					continue
				}
				if k == KindNationalID {
					cs.dets = append(cs.dets, national...)
				} else {
					cs.dets = append(cs.dets, builtin[k]...)
				}
			}
		}
		g.stages[i] = cs
	}
	for _, d := range g.stages[2].dets {
		g.hold = max(g.hold, d.partial)
	}
	for _, r := range builtinRules {
		g.rules = append(g.rules, rule{name: r.Name, re: regexp.MustCompile(r.Pattern), score: r.Score, triggers: triggers[r.Name]})
	}
	for _, r := range p.InjectionRules {
		g.rules = slicesDeleteRule(g.rules, r.Name)
		g.rules = append(g.rules, rule{name: r.Name, re: regexp.MustCompile(r.Pattern), score: r.Score})
	}
	return g, nil
}

func slicesDeleteRule(rs []rule, name string) []rule {
	out := rs[:0]
	for _, r := range rs {
		if r.name != name {
			out = append(out, r)
		}
	}
	return out
}

func contains(list []string, s string) bool {
	for _, v := range list {
		if v == s {
			return true
		}
	}
	return false
}

func (g *Guard) stage(name string) *compiledStage {
	switch name {
	case StageInput:
		return &g.stages[0]
	case StageContext:
		return &g.stages[1]
	default:
		return &g.stages[2]
	}
}

// Checks reports whether the guard does anything on a stage.
func (g *Guard) Checks(stage string) bool {
	if g == nil {
		return false
	}
	s := g.stage(stage)
	return len(s.dets) > 0 || s.injection != ""
}

// Check runs a stage's checks on one text and returns the text to use
// (redacted, or with injections stripped). drop is true when an injection
// is to be stripped from retrieved context: the caller leaves the whole
// chunk out. A refuse action returns a *Refusal.
func (g *Guard) Check(ctx context.Context, stage, text string, rep Sink) (out string, drop bool, err error) {
	if g == nil || text == "" {
		return text, false, nil
	}
	s := g.stage(stage)
	if len(s.dets) > 0 {
		if text, err = s.pii(text, rep); err != nil {
			return "", false, err
		}
	}
	if s.injection != "" {
		return g.injection(ctx, s, text, rep)
	}
	return text, false, nil
}

// pii finds every kind of the stage in text and acts on the matches.
func (s *compiledStage) pii(text string, rep Sink) (string, error) {
	spans := find(s.dets, text, len(text))
	if len(spans) == 0 {
		return text, nil
	}
	if s.piiAction == ActionRefuse {
		add(rep, s.name, "pii."+spans[0].d.kind, ActionRefuse, 1)
		return "", &Refusal{Stage: s.name, Rule: "pii." + spans[0].d.kind}
	}
	for _, sp := range spans {
		add(rep, s.name, "pii."+sp.d.kind, s.piiAction, 1)
	}
	if s.piiAction == ActionAnnotate {
		return text, nil
	}
	return replace(text, spans), nil
}

// find returns the validated, non-overlapping matches of dets in text
// that start before limit, in order; an earlier detector wins an overlap.
func find(dets []*detector, text string, limit int) []span {
	spans, _ := findAll(dets, text, limit, nil)
	return spans
}

// findAll is find that also appends every raw candidate (validated or
// not) to cands.
func findAll(dets []*detector, text string, limit int, cands [][2]int) ([]span, [][2]int) {
	var spans []span
	for _, d := range dets {
		d.candidates(text, func(s, e int) {
			if s >= limit {
				return
			}
			cands = append(cands, [2]int{s, e})
			if d.check != nil {
				var ok bool
				if s, e, ok = d.check(text, s, e); !ok {
					return
				}
			}
			if !overlaps(spans, s, e) {
				spans = append(spans, span{s: s, e: e, d: d})
			}
		})
	}
	if len(spans) > 1 {
		slices.SortFunc(spans, func(a, b span) int { return a.s - b.s })
	}
	return spans, cands
}

func overlaps(spans []span, s, e int) bool {
	for _, sp := range spans {
		if s < sp.e && sp.s < e {
			return true
		}
	}
	return false
}

// replace writes text with each span replaced by its detector's label.
func replace(text string, spans []span) string {
	var b strings.Builder
	b.Grow(len(text))
	at := 0
	for _, sp := range spans {
		b.WriteString(text[at:sp.s])
		b.WriteString(sp.d.label)
		at = sp.e
	}
	b.WriteString(text[at:])
	return b.String()
}

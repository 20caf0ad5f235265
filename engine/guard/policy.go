package guard

import (
	"fmt"
	"regexp"
	"slices"
	"strings"
)

// Stages of a request a policy checks.
const (
	StageInput   = "input"
	StageContext = "context"
	StageOutput  = "output"
)

// Actions on a PII match, and on text that scores as an injection.
const (
	ActionAnnotate = "annotate" // PII: record only
	ActionRedact   = "redact"   // PII: replace with the kind's label
	ActionFlag     = "flag"     // injection: record only
	ActionStrip    = "strip"    // injection: remove the matched text (a retrieved chunk: drop it)
	ActionRefuse   = "refuse"   // both: refuse the request with a 4xx naming the rule
)

// Policy says which checks run on each stage of a request. It is the JSON
// of the server-wide setting, of a pipe's "guard" field and of a key's
// scope; policies combine with Merge.
type Policy struct {
	Input   *Stage `json:"input,omitempty"`
	Context *Stage `json:"context,omitempty"`
	Output  *Stage `json:"output,omitempty"`
	// NationalIDs are the patterns of the national_id kind.
	NationalIDs []Pattern `json:"national_ids,omitempty"`
	// InjectionRules are scored patterns added to the built-in ones.
	InjectionRules []Rule `json:"injection_rules,omitempty"`
	// InjectionThreshold is the score at which text counts as an
	// injection (0: DefaultThreshold).
	InjectionThreshold float64 `json:"injection_threshold,omitempty"`
}

// Stage is the checks of one stage: the PII kinds looked for and what to
// do on a match, and what to do with text that scores as an injection.
type Stage struct {
	PII       []string `json:"pii,omitempty"`
	PIIAction string   `json:"pii_action,omitempty"`
	Injection string   `json:"injection,omitempty"`
}

// Pattern is an operator-written national id pattern (RE2 syntax).
type Pattern struct {
	Name    string `json:"name"`
	Pattern string `json:"pattern"`
}

// Rule is a scored injection pattern (RE2 syntax, case-sensitive unless
// it says (?i)).
type Rule struct {
	Name    string  `json:"name"`
	Pattern string  `json:"pattern"`
	Score   float64 `json:"score"`
}

// DefaultThreshold is the injection score at which text is acted on.
const DefaultThreshold = 0.7

// maxPatternLen bounds an operator pattern's source.
const maxPatternLen = 512

// Empty reports whether the policy checks nothing.
func (p *Policy) Empty() bool {
	return p == nil || (p.Input.empty() && p.Context.empty() && p.Output.empty())
}

func (s *Stage) empty() bool { return s == nil || (len(s.PII) == 0 && s.Injection == "") }

// Validate checks a policy; field prefixes the names in its errors
// ("guard"), which say the field and the rule and never echo a match.
func (p *Policy) Validate(field string) error {
	if p == nil {
		return nil
	}
	for _, st := range []struct {
		name string
		s    *Stage
	}{{StageInput, p.Input}, {StageContext, p.Context}, {StageOutput, p.Output}} {
		if err := st.s.validate(field+"."+st.name, st.name); err != nil {
			return err
		}
	}
	names := map[string]bool{}
	for i, pt := range p.NationalIDs {
		f := fmt.Sprintf("%s.national_ids[%d]", field, i)
		if err := checkName(f+".name", pt.Name, names); err != nil {
			return err
		}
		if err := checkPattern(f+".pattern", pt.Pattern); err != nil {
			return err
		}
	}
	names = map[string]bool{}
	for i, r := range p.InjectionRules {
		f := fmt.Sprintf("%s.injection_rules[%d]", field, i)
		if err := checkName(f+".name", r.Name, names); err != nil {
			return err
		}
		if err := checkPattern(f+".pattern", r.Pattern); err != nil {
			return err
		}
		if r.Score <= 0 || r.Score > 10 {
			return fmt.Errorf("%s.score: must be above 0 and at most 10, got %g", f, r.Score)
		}
	}
	if p.InjectionThreshold < 0 || p.InjectionThreshold > 100 {
		return fmt.Errorf("%s.injection_threshold: must be from 0 to 100, got %g", field, p.InjectionThreshold)
	}
	return nil
}

func (s *Stage) validate(field, stage string) error {
	if s == nil {
		return nil
	}
	for i, k := range s.PII {
		if !slices.Contains(Kinds, k) {
			return fmt.Errorf("%s.pii[%d]: unknown kind %q (one of %s)", field, i, k, strings.Join(Kinds, ", "))
		}
	}
	switch s.PIIAction {
	case "", ActionAnnotate, ActionRedact, ActionRefuse:
	default:
		return fmt.Errorf("%s.pii_action: must be annotate, redact or refuse, got %q", field, s.PIIAction)
	}
	switch s.Injection {
	case "", ActionFlag, ActionStrip, ActionRefuse:
		if s.Injection != "" && stage == StageOutput {
			return fmt.Errorf("%s.injection: injection checks run on input and context only", field)
		}
	default:
		return fmt.Errorf("%s.injection: must be flag, strip or refuse, got %q", field, s.Injection)
	}
	return nil
}

var nameRe = regexp.MustCompile(`^[a-z0-9][a-z0-9_\-]{0,39}$`)

func checkName(field, name string, seen map[string]bool) error {
	if !nameRe.MatchString(name) {
		return fmt.Errorf("%s: must be 1 to 40 lower-case letters, digits, _ or -, got %q", field, name)
	}
	if seen[name] {
		return fmt.Errorf("%s: %q is named twice", field, name)
	}
	seen[name] = true
	return nil
}

func checkPattern(field, src string) error {
	if src == "" || len(src) > maxPatternLen {
		return fmt.Errorf("%s: must be a regular expression of 1 to %d bytes", field, maxPatternLen)
	}
	re, err := regexp.Compile(src)
	if err != nil {
		return fmt.Errorf("%s: not a valid regular expression (RE2 syntax): %v", field, err)
	}
	if re.MatchString("") {
		return fmt.Errorf("%s: must not match empty text", field)
	}
	return nil
}

// rank orders actions by strictness within their family.
var rank = map[string]int{"": 0, ActionAnnotate: 1, ActionFlag: 1, ActionRedact: 2, ActionStrip: 2, ActionRefuse: 3}

func stricter(a, b string) string {
	if rank[b] > rank[a] {
		return b
	}
	return a
}

// Merge combines policies (server-wide, key, pipe; nil ones are skipped):
// each stage checks the union of the kinds and takes the strictest action
// any of them sets, so a key or pipe policy adds checks and never removes
// the server's. Patterns and rules are joined (a later one of the same
// name replaces an earlier one); the lowest threshold set wins.
func Merge(ps ...*Policy) *Policy {
	out := &Policy{}
	for _, p := range ps {
		if p == nil {
			continue
		}
		out.Input = mergeStage(out.Input, p.Input)
		out.Context = mergeStage(out.Context, p.Context)
		out.Output = mergeStage(out.Output, p.Output)
		for _, pt := range p.NationalIDs {
			out.NationalIDs = slices.DeleteFunc(out.NationalIDs, func(x Pattern) bool { return x.Name == pt.Name })
			out.NationalIDs = append(out.NationalIDs, pt)
		}
		for _, r := range p.InjectionRules {
			out.InjectionRules = slices.DeleteFunc(out.InjectionRules, func(x Rule) bool { return x.Name == r.Name })
			out.InjectionRules = append(out.InjectionRules, r)
		}
		if t := p.InjectionThreshold; t > 0 && (out.InjectionThreshold == 0 || t < out.InjectionThreshold) {
			out.InjectionThreshold = t
		}
	}
	return out
}

func mergeStage(a, b *Stage) *Stage {
	if b == nil {
		return a
	}
	if a == nil {
		c := *b
		c.PII = slices.Clone(b.PII)
		return &c
	}
	c := Stage{PII: slices.Clone(a.PII), PIIAction: stricter(a.PIIAction, b.PIIAction), Injection: stricter(a.Injection, b.Injection)}
	for _, k := range b.PII {
		if !slices.Contains(c.PII, k) {
			c.PII = append(c.PII, k)
		}
	}
	return &c
}

package guard

import (
	"context"
	"sort"
	"strings"
)

// builtinRules are the injection and jailbreak heuristics every policy
// starts from; a policy's rule of the same name replaces one.
var builtinRules = []Rule{
	{Name: "ignore_instructions", Score: 0.8, Pattern: `(?i)\b(?:ignore|disregard|forget|override)\b[^.\n]{0,40}\b(?:previous|prior|above|earlier|preceding|all|your|system)\b[^.\n]{0,20}\b(?:instructions?|rules|prompts?|directions|guidelines)`},
	{Name: "reveal_prompt", Score: 0.6, Pattern: `(?i)\b(?:reveal|show|print|repeat|output|leak|tell me)\b[^.\n]{0,30}\b(?:system prompt|hidden (?:instructions|prompt)|initial (?:instructions|prompt)|your instructions)`},
	{Name: "role_override", Score: 0.5, Pattern: `(?i)\byou are (?:now|no longer)\b|\bfrom now on,? you\b|\bpretend (?:to be|you are)\b|\bact as (?:an? )?(?:unrestricted|unfiltered|jailbroken|evil)`},
	{Name: "jailbreak_mode", Score: 0.7, Pattern: `(?i)\b(?:developer|god|jailbreak|dan|unrestricted) mode\b|\bdo anything now\b|\bjailbreak(?:en)?\b`},
	{Name: "bypass_safety", Score: 0.6, Pattern: `(?i)\b(?:bypass|disable|ignore|turn off|remove)\b[^.\n]{0,20}\b(?:safety|filters?|guardrails?|restrictions|content polic(?:y|ies)|moderation)`},
	{Name: "fake_turn", Score: 0.5, Pattern: `(?i)<\|?(?:system|im_start|im_end)\|?>|\[/?(?:system|inst)\]|(?:^|\n)\s*(?:system|assistant)\s*:`},
	{Name: "new_instructions", Score: 0.4, Pattern: `(?i)\b(?:new|updated|real|actual) (?:system )?instructions\s*:`},
}

// triggers are lower-case words each match of a built-in rule contains:
// the rule's expression runs only on a window around one of them.
var triggers = map[string][]string{
	"ignore_instructions": {"ignore", "disregard", "forget", "override"},
	"reveal_prompt":       {"prompt", "instructions"},
	"role_override":       {"you are", "from now on", "pretend", "act as"},
	"jailbreak_mode":      {" mode", "anything now", "jailbreak"},
	"bypass_safety":       {"bypass", "disable", "ignore", "turn off", "remove"},
	"fake_turn":           {"<|", "[system", "[inst", "[/", "system", "assistant"},
	"new_instructions":    {"instructions"},
}

// triggerReach is how far from its trigger a built-in rule's match can
// reach.
const triggerReach = 160

// matches reports whether a rule matches text (lower is its ASCII
// lower-case copy).
func (r *rule) matches(text, lower string) bool {
	if r.triggers == nil {
		return r.re.MatchString(text)
	}
	for _, t := range r.triggers {
		for at := 0; ; {
			k := strings.Index(lower[at:], t)
			if k < 0 {
				break
			}
			p := at + k
			if r.re.MatchString(text[max(0, p-triggerReach):min(len(text), p+len(t)+triggerReach)]) {
				return true
			}
			at = min(len(text), p+len(t)+triggerReach)
		}
	}
	return false
}

// asciiLower returns s with ASCII letters in lower case (same length).
func asciiLower(s string) string {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c >= 'A' && c <= 'Z' {
			b := []byte(s)
			for j := i; j < len(b); j++ {
				if c := b[j]; c >= 'A' && c <= 'Z' {
					b[j] = c + 'a' - 'A'
				}
			}
			return string(b)
		}
	}
	return s
}

// injection scores text against the rules (and the classifier) and acts.
func (g *Guard) injection(ctx context.Context, s *compiledStage, text string, rep Sink) (string, bool, error) {
	score, hits := 0.0, []rule(nil)
	lower := asciiLower(text)
	for i := range g.rules {
		if r := &g.rules[i]; r.matches(text, lower) {
			score += r.score
			hits = append(hits, *r)
		}
	}
	name := ""
	if score >= g.threshold {
		sort.SliceStable(hits, func(i, j int) bool { return hits[i].score > hits[j].score })
		name = "injection." + hits[0].name
	} else if g.classifier != nil {
		v, err := g.classifier.Classify(ctx, text)
		if err != nil {
			return "", false, err
		}
		if v >= g.classifier.Threshold() {
			name, hits = "injection.classifier", nil
		}
	}
	if name == "" {
		return text, false, nil
	}
	add(rep, s.name, name, s.injection, 1)
	switch s.injection {
	case ActionRefuse:
		return "", false, &Refusal{Stage: s.name, Rule: name}
	case ActionStrip:
		if s.name == StageContext || hits == nil {
			return "", true, nil
		}
		for _, r := range hits {
			text = r.re.ReplaceAllString(text, "")
		}
		return strings.TrimSpace(text), false, nil
	}
	return text, false, nil
}

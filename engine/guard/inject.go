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

// injection scores text against the rules (and the classifier) and acts.
func (g *Guard) injection(ctx context.Context, s *compiledStage, text string, rep *Report) (string, bool, error) {
	score, hits := 0.0, []rule(nil)
	for _, r := range g.rules {
		if r.re.MatchString(text) {
			score += r.score
			hits = append(hits, r)
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
	rep.Add(s.name, name, s.injection, 1)
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

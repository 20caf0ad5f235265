package fake

import "regexp"

// AddModelCheck makes an OpenAI-wire fake act as its host does for a
// model the built-in checks do not know (a model newer than Hearth): the
// models matching the regular expression refuse the rejects fields,
// take only the efforts as reasoning_effort (nil: refuse it) and, when
// maxTokensName is set, refuse max_tokens. It is checked before the
// built-in checks.
func (s *Server) AddModelCheck(model string, rejects, efforts []string, maxTokensName string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.modelChecks = append(s.modelChecks, oaiCheck{host: s.host, model: regexp.MustCompile(model),
		rejects: rejects, efforts: efforts, maxTokensName: maxTokensName})
}

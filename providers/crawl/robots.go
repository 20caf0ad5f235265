package crawl

import (
	"bufio"
	"bytes"
	"strings"
)

// robots is the parsed robots.txt rules that apply to Hearth's crawler
// (RFC 9309): the groups whose user-agent is "hearth", or else the "*"
// groups. The longest matching pattern decides; on a tie Allow wins.
type robots struct {
	rules []robotsRule
	// disallowAll is set when robots.txt could not be fetched because the
	// site failed (5xx, network error): RFC 9309 says assume everything
	// is disallowed.
	disallowAll bool
}

type robotsRule struct {
	allow   bool
	pattern string
}

// robotsAgent is the product token Hearth's crawler matches in robots.txt.
const robotsAgent = "hearth"

// parseRobots reads a robots.txt body.
func parseRobots(body []byte) *robots {
	type group struct {
		agents []string
		rules  []robotsRule
	}
	var groups []*group
	var cur *group
	inAgents := false
	sc := bufio.NewScanner(bytes.NewReader(body))
	sc.Buffer(make([]byte, 64<<10), 64<<10)
	for sc.Scan() {
		line := sc.Text()
		if i := strings.IndexByte(line, '#'); i >= 0 {
			line = line[:i]
		}
		key, val, ok := strings.Cut(line, ":")
		if !ok {
			continue
		}
		key = strings.ToLower(strings.TrimSpace(key))
		val = strings.TrimSpace(val)
		switch key {
		case "user-agent":
			if !inAgents {
				cur = &group{}
				groups = append(groups, cur)
				inAgents = true
			}
			cur.agents = append(cur.agents, strings.ToLower(val))
		case "allow", "disallow":
			inAgents = false
			if cur == nil || val == "" {
				continue // rules before any user-agent; empty disallow allows all
			}
			cur.rules = append(cur.rules, robotsRule{allow: key == "allow", pattern: val})
		default:
			// crawl-delay, sitemap and others: no effect on what may be fetched
		}
	}
	matches := func(agent string) []robotsRule {
		var out []robotsRule
		for _, g := range groups {
			for _, a := range g.agents {
				if a == agent || (agent != "*" && strings.HasPrefix(a, agent+"/")) {
					out = append(out, g.rules...)
					break
				}
			}
		}
		return out
	}
	r := &robots{}
	found := false
	for _, g := range groups {
		for _, a := range g.agents {
			if a == robotsAgent || strings.HasPrefix(a, robotsAgent+"/") {
				found = true
			}
		}
	}
	if found {
		r.rules = matches(robotsAgent)
	} else {
		r.rules = matches("*")
	}
	return r
}

// allowed reports whether path (the URL's escaped path plus "?query") may
// be fetched.
func (r *robots) allowed(path string) bool {
	if path == "/robots.txt" {
		return true
	}
	if r == nil {
		return true
	}
	if r.disallowAll {
		return false
	}
	best, allow := -1, true
	for _, rule := range r.rules {
		if n := len(rule.pattern); n >= best && robotsMatch(rule.pattern, path) {
			if n > best || rule.allow {
				allow = rule.allow
			}
			best = n
		}
	}
	return allow
}

// robotsMatch matches a robots.txt path pattern: a prefix match where '*'
// matches any run of characters and a final '$' anchors the end.
func robotsMatch(pattern, path string) bool {
	anchored := strings.HasSuffix(pattern, "$")
	if anchored {
		pattern = pattern[:len(pattern)-1]
	}
	parts := strings.Split(pattern, "*")
	if !strings.HasPrefix(path, parts[0]) {
		return false
	}
	pos := len(parts[0])
	for i, p := range parts[1:] {
		last := i == len(parts)-2
		if last && anchored {
			return strings.HasSuffix(path[pos:], p)
		}
		j := strings.Index(path[pos:], p)
		if j < 0 {
			return false
		}
		pos += j + len(p)
	}
	if anchored {
		return pos == len(path)
	}
	return true
}

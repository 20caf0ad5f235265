package crawl

import "testing"

func TestRobotsRules(t *testing.T) {
	const txt = `
# comments and blank lines are ignored
User-agent: *
Disallow: /

User-agent: OtherBot
User-agent: Hearth
Disallow: /private/
Allow: /private/open
Disallow: /*.cgi$
Disallow: /search?
Crawl-delay: 10

User-agent: hearth
Disallow: /tmp
`
	r := parseRobots([]byte(txt))
	cases := map[string]bool{
		"/":                   true, // the * group does not apply: Hearth has its own
		"/docs/intro":         true,
		"/private/":           false,
		"/private/x":          false,
		"/private/open":       true, // longer Allow wins
		"/private/open/deep":  true,
		"/run.cgi":            false,
		"/run.cgi?x=1":        true, // $ anchors the end
		"/search?q=1":         false,
		"/search":             true,
		"/tmp/file":           false, // both Hearth groups merge
		"/robots.txt":         true,
		"/PRIVATE/different":  true, // paths are case-sensitive
		"/a/private/not-root": true,
	}
	for path, want := range cases {
		if got := r.allowed(path); got != want {
			t.Errorf("%s: allowed %v, want %v", path, got, want)
		}
	}
}

func TestRobotsFallsBackToStar(t *testing.T) {
	r := parseRobots([]byte("User-agent: Googlebot\nDisallow: /\n\nUser-agent: *\nDisallow: /admin\nAllow: /admin/public\nDisallow: /x\nAllow: /x\n"))
	for path, want := range map[string]bool{"/": true, "/admin": false, "/admin/users": false, "/admin/public/a": true, "/x": true} {
		if got := r.allowed(path); got != want {
			t.Errorf("%s: allowed %v, want %v (equal length: Allow wins)", path, got, want)
		}
	}
	if !parseRobots(nil).allowed("/anything") {
		t.Error("empty robots.txt must allow everything")
	}
	if !parseRobots([]byte("User-agent: *\nDisallow:\n")).allowed("/a") {
		t.Error("an empty Disallow allows everything")
	}
	if (&robots{disallowAll: true}).allowed("/a") {
		t.Error("an unreachable robots.txt disallows everything")
	}
}

func TestRobotsMatch(t *testing.T) {
	cases := []struct {
		pattern, path string
		want          bool
	}{
		{"/a", "/a", true},
		{"/a", "/abc", true},
		{"/a$", "/abc", false},
		{"/a$", "/a", true},
		{"/*.php", "/index.php", true},
		{"/*.php", "/x/index.php?y", true},
		{"/*.php$", "/index.php?y", false},
		{"/a*b*c", "/a-x-b-y-c", true},
		{"/a*b*c", "/a-x-c-y-b", false},
		{"*", "/anything", true},
		{"/fish*", "/Fish", false},
	}
	for _, tc := range cases {
		if got := robotsMatch(tc.pattern, tc.path); got != tc.want {
			t.Errorf("robotsMatch(%q, %q) = %v", tc.pattern, tc.path, got)
		}
	}
}

package server_test

import (
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// nodeSummary is the count block node's test runner prints at the end of
// its TAP report (https://nodejs.org/api/test.html#test-reporters):
// "# tests N", "# pass N", "# skipped N" and so on.
type nodeSummary struct {
	Tests, Pass, Fail, Cancelled, Skipped, Todo int
	// Ran counts the test points that name a test, and Empty the ones
	// that name a test file: node 20 reports a file that declared no
	// test as one passing test named by the file's path.
	Ran   int
	Empty []string
	// Unfinished names the tests reported with a SKIP or TODO directive.
	Unfinished []string
}

var (
	tapCount = regexp.MustCompile(`(?m)^# (tests|pass|fail|cancelled|skipped|todo) (\d+)\s*$`)
	tapPoint = regexp.MustCompile(`(?m)^\s*(?:not )?ok \d+ - (.*?)(?: # (SKIP|TODO)\b.*)?$`)
	// jsTestDecl matches a test declaration anywhere on a line, so one
	// behind a condition counts too: test(...), it(...), and their
	// .skip/.todo/.only variants, but not t.test(...) or contest(...).
	jsTestDecl = regexp.MustCompile(`(?:^|[^.\w$])(?:test|it)(?:\.(?:skip|todo|only))?\(`)
	// jsLineComment is a line holding only a comment.
	jsLineComment = regexp.MustCompile(`(?m)^\s*(?://|/?\*).*$`)
)

// parseNodeTAP reads the summary of a `node --test --test-reporter=tap`
// report. It fails when the report has no summary (node crashed or the
// reporter changed), so a missing count is never read as zero.
func parseNodeTAP(tap string) (nodeSummary, error) {
	var s nodeSummary
	seen := map[string]bool{}
	for _, m := range tapCount.FindAllStringSubmatch(tap, -1) {
		n, _ := strconv.Atoi(m[2])
		seen[m[1]] = true
		switch m[1] {
		case "tests":
			s.Tests = n
		case "pass":
			s.Pass = n
		case "fail":
			s.Fail = n
		case "cancelled":
			s.Cancelled = n
		case "skipped":
			s.Skipped = n
		case "todo":
			s.Todo = n
		}
	}
	for _, k := range []string{"tests", "pass", "fail", "cancelled", "skipped", "todo"} {
		if !seen[k] {
			return s, fmt.Errorf("the TAP report has no %q count", "# "+k)
		}
	}
	for _, m := range tapPoint.FindAllStringSubmatch(tap, -1) {
		switch {
		case m[2] != "":
			s.Unfinished = append(s.Unfinished, m[1]+" "+m[2])
		case isNodeTestFile(m[1]):
			s.Empty = append(s.Empty, m[1])
		default:
			s.Ran++
		}
	}
	return s, nil
}

// check reports why a run whose process exited 0 still did not test what
// the files declare: no test ran, a test was skipped or left todo, a test
// failed or was cancelled, or fewer tests ran than are declared.
func (s nodeSummary) check(declared int) error {
	var why []string
	if s.Tests == 0 {
		why = append(why, "no test ran")
	}
	if len(s.Empty) > 0 {
		why = append(why, "no test ran in "+strings.Join(s.Empty, ", "))
	}
	if s.Ran < declared {
		why = append(why, fmt.Sprintf("%d tests ran but the test files declare %d", s.Ran, declared))
	}
	if s.Skipped > 0 || s.Todo > 0 {
		why = append(why, fmt.Sprintf("%d skipped and %d todo (%s)", s.Skipped, s.Todo, strings.Join(s.Unfinished, "; ")))
	}
	if s.Fail > 0 || s.Cancelled > 0 {
		why = append(why, fmt.Sprintf("%d failed and %d cancelled", s.Fail, s.Cancelled))
	}
	if s.Pass != s.Tests {
		why = append(why, fmt.Sprintf("%d of %d tests passed", s.Pass, s.Tests))
	}
	if len(why) == 0 {
		return nil
	}
	return fmt.Errorf("node --test: %s", strings.Join(why, "; "))
}

// declaredNodeTests counts the test declarations in the files `node
// --test` runs in dir (*.test.mjs, *.test.js, *.test.cjs outside
// node_modules). A declaration inside a loop counts once, so the number
// of tests that ran can only be higher.
func declaredNodeTests(dir string) (int, error) {
	n, files := 0, 0
	err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if d.Name() == "node_modules" {
				return filepath.SkipDir
			}
			return nil
		}
		if !isNodeTestFile(d.Name()) {
			return nil
		}
		src, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		files++
		n += len(jsTestDecl.FindAllIndex(jsLineComment.ReplaceAll(src, nil), -1))
		return nil
	})
	if err == nil && files == 0 {
		err = fmt.Errorf("no *.test.mjs file in %s", dir)
	}
	return n, err
}

// isNodeTestFile reports whether name is one of the test files node
// --test runs here.
func isNodeTestFile(name string) bool {
	return strings.HasSuffix(name, ".test.mjs") || strings.HasSuffix(name, ".test.js") || strings.HasSuffix(name, ".test.cjs")
}

func TestNodeSummaryCheck(t *testing.T) {
	sum := func(tests, pass, fail, cancelled, skipped, todo int) string {
		return fmt.Sprintf("# tests %d\n# suites 0\n# pass %d\n# fail %d\n# cancelled %d\n# skipped %d\n# todo %d\n# duration_ms 80.1\n",
			tests, pass, fail, cancelled, skipped, todo)
	}
	cases := []struct {
		name     string
		tap      string
		declared int
		want     string // substring of the error; "" means the run is accepted
	}{
		{"all passed", "ok 1 - a\nok 2 - b\n1..2\n" + sum(2, 2, 0, 0, 0, 0), 2, ""},
		{"more ran than declared", "ok 1 - a\nok 2 - a\n    ok 1 - sub\n1..2\n" + sum(3, 3, 0, 0, 0, 0), 2, ""},
		{"no test ran", "1..0\n" + sum(0, 0, 0, 0, 0, 0), 0, "no test ran"},
		{"fewer than declared", "ok 1 - a\n1..1\n" + sum(1, 1, 0, 0, 0, 0), 2, "1 tests ran but the test files declare 2"},
		{"a file declared none", "ok 1 - /sdk/traces.test.mjs\nok 2 - a\n1..2\n" + sum(2, 2, 0, 0, 0, 0), 1, "no test ran in /sdk/traces.test.mjs"},
		{"skipped", "ok 1 - a\nok 2 - b # SKIP no key\n1..2\n" + sum(2, 1, 0, 0, 1, 0), 1, "b SKIP"},
		{"todo", "ok 1 - a # TODO\nok 2 - b\n1..2\n" + sum(2, 1, 0, 0, 0, 1), 1, "a TODO"},
		{"failed", "not ok 1 - a\n1..1\n" + sum(1, 0, 1, 0, 0, 0), 1, "1 failed"},
		{"cancelled", "not ok 1 - a\n1..1\n" + sum(1, 0, 0, 1, 0, 0), 1, "1 cancelled"},
		{"no summary", "TAP version 13\nok 1 - a\n", 1, "no \"# tests\" count"},
		{"truncated summary", "ok 1 - a\n# tests 1\n# pass 1\n", 1, "no \"# fail\" count"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			s, err := parseNodeTAP(c.tap)
			if err == nil {
				err = s.check(c.declared)
			}
			switch {
			case c.want == "" && err != nil:
				t.Errorf("accepted run refused: %v", err)
			case c.want != "" && err == nil:
				t.Errorf("run accepted; want an error containing %q", c.want)
			case c.want != "" && !strings.Contains(err.Error(), c.want):
				t.Errorf("error %q; want it to contain %q", err, c.want)
			}
		})
	}
}

func TestDeclaredNodeTests(t *testing.T) {
	dir := t.TempDir()
	write := func(name, src string) {
		t.Helper()
		if err := os.MkdirAll(filepath.Dir(filepath.Join(dir, name)), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, name), []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := declaredNodeTests(dir); err == nil {
		t.Error("a folder without test files is accepted")
	}
	write("a.test.mjs", "import test from 'node:test';\ntest('a', () => {});\n  test.skip('b', () => {});\nconst latest = test;\n// not a test('c')\nif (process.env.X) test('g', () => {});\n")
	write("b.test.js", "describe('d', () => {\n  it('e', (t) => { t.test('sub'); });\n  it.todo('f');\n  contest('h');\n});\n")
	write("helpers.mjs", "test('not run by node --test', () => {});\n")
	write("node_modules/x/y.test.mjs", "test('vendored', () => {});\n")
	n, err := declaredNodeTests(dir)
	if err != nil {
		t.Fatal(err)
	}
	if n != 5 {
		t.Errorf("declaredNodeTests = %d; want 5 (a, b, g, e, f)", n)
	}
	real, err := declaredNodeTests(filepath.Join("..", "testdata", "sdk"))
	if err != nil || real < 30 {
		t.Errorf("testdata/sdk declares %d tests (%v); want the suite's 30 or more", real, err)
	}
}

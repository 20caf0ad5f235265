package crawl

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/hearth-dev/hearth/engine"
	"github.com/hearth-dev/hearth/providers/netguard"
)

// site is a local web site for the crawler: robots.txt, linked pages,
// redirects, a huge page, non-HTML content. It records the paths fetched.
type site struct {
	*httptest.Server
	mu     sync.Mutex
	hits   []string
	robots string
	status int // robots.txt status (0: 200)
}

const siteRobots = `User-agent: *
Disallow: /

User-agent: Hearth
Disallow: /private/
Allow: /private/open
Disallow: /*.cgi$
`

func newSite(t *testing.T) *site {
	t.Helper()
	s := &site{robots: siteRobots}
	s.Server = httptest.NewServer(http.HandlerFunc(s.serve))
	t.Cleanup(s.Close)
	return s
}

func (s *site) paths() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]string(nil), s.hits...)
}

func (s *site) count(path string) int {
	n := 0
	for _, p := range s.paths() {
		if p == path {
			n++
		}
	}
	return n
}

func htmlPage(title, body string) string {
	return "<!doctype html><html><head><title>" + title + "</title></head><body><nav><a href=\"/\">Home</a></nav><main><h1>" +
		title + "</h1>" + body + "</main><footer>footer text</footer></body></html>"
}

func (s *site) serve(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	s.hits = append(s.hits, r.URL.RequestURI())
	s.mu.Unlock()
	if ua := r.Header.Get("User-Agent"); !strings.HasPrefix(ua, "Hearth/") {
		http.Error(w, "bad user agent "+ua, 400)
		return
	}
	html := func(body string) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		fmt.Fprint(w, body)
	}
	switch r.URL.Path {
	case "/robots.txt":
		if s.status != 0 {
			w.WriteHeader(s.status)
			return
		}
		fmt.Fprint(w, s.robots)
	case "/":
		html(htmlPage("Home", `<p>Welcome to the test site.</p>
			<a href="/a">Page A</a> <a href="/b#section">Page B</a> <a href="/a">A again</a>
			<a href="/private/secret">Secret</a> <a href="/private/open">Open</a> <a href="/run.cgi">CGI</a>
			<a href="/data.json">Data</a> <a href="/logo.png">Logo</a> <a href="/plain.txt">Plain</a>
			<a href="/big">Big</a> <a href="/redirect-ok">Moved</a> <a href="/redirect-disallowed">Sneaky</a>
			<a href="https://elsewhere.example/x">Elsewhere</a> <a href="mailto:a@b">Mail</a>`))
	case "/a":
		html(htmlPage("Page A", `<p>Alpha text.</p><a href="/c">Page C</a>`))
	case "/b":
		html(htmlPage("Page B", `<p>Beta text.</p>`))
	case "/c":
		html(htmlPage("Page C", `<p>Gamma text.</p>`))
	case "/d":
		html(htmlPage("Page D", `<p>Moved here.</p>`))
	case "/private/open":
		html(htmlPage("Open", `<p>Allowed by the Hearth group.</p>`))
	case "/private/secret", "/run.cgi":
		html(htmlPage("Forbidden", `<p>must never be fetched</p>`))
	case "/data.json":
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprint(w, `{"not":"html"}`)
	case "/logo.png":
		w.Header().Set("Content-Type", "image/png")
		w.Write([]byte("\x89PNG"))
	case "/plain.txt":
		w.Header().Set("Content-Type", "text/plain; charset=utf-8")
		fmt.Fprint(w, "  Plain text file.\n")
	case "/big":
		w.Header().Set("Content-Type", "text/html")
		fmt.Fprint(w, "<html><body><h1>Big</h1><p>")
		chunk := strings.Repeat("word ", 1000)
		for i := 0; i < 700; i++ { // about 3.5 MB
			fmt.Fprint(w, chunk)
		}
		fmt.Fprint(w, "</p><p>THE END</p></body></html>")
	case "/redirect-ok":
		http.Redirect(w, r, "/d", http.StatusFound)
	case "/redirect-disallowed":
		http.Redirect(w, r, "/private/secret", http.StatusFound)
	case "/redirect-private":
		http.Redirect(w, r, "http://10.20.30.40/internal", http.StatusFound)
	case "/loop":
		http.Redirect(w, r, "/loop", http.StatusFound)
	case "/to-localhost":
		http.Redirect(w, r, strings.Replace(s.URL, "127.0.0.1", "localhost", 1)+"/a", http.StatusMovedPermanently)
	case "/slow":
		<-r.Context().Done()
	case "/links-slow":
		html(`<html><body><p>Start.</p><a href="/slow">Slow</a></body></html>`)
	default:
		http.NotFound(w, r)
	}
}

func loopback() netguard.Policy { return netguard.Policy{AllowLoopback: true} }

func crawlOnce(t *testing.T, b *Builtin, max int, urls ...string) ([]engine.ToolResult, error) {
	t.Helper()
	return b.Crawl(context.Background(), &engine.CrawlJob{URLs: urls, MaxPages: max})
}

func resultURLs(res []engine.ToolResult, base string) []string {
	var out []string
	for _, r := range res {
		out = append(out, strings.TrimPrefix(r.URL, base))
	}
	return out
}

func TestBuiltinBreadthFirstUpToMaxPages(t *testing.T) {
	s := newSite(t)
	b := NewBuiltin(loopback(), Limits{}, nil)
	res, err := crawlOnce(t, b, 3, s.URL+"/")
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(resultURLs(res, s.URL), " "); got != "/ /a /b" {
		t.Fatalf("pages %s", got)
	}
	if s.count("/robots.txt") != 1 {
		t.Fatalf("robots.txt fetched %d times", s.count("/robots.txt"))
	}
	home := res[0].Content
	for _, want := range []string{"# Home", "Welcome to the test site.", "[Page A](" + s.URL + "/a)"} {
		if !strings.Contains(home, want) {
			t.Errorf("home lacks %q:\n%s", want, home)
		}
	}
	if strings.Contains(home, "footer text") || strings.HasPrefix(home, "[Home]") {
		t.Errorf("nav or footer kept:\n%s", home)
	}
}

func TestBuiltinWholeSite(t *testing.T) {
	s := newSite(t)
	b := NewBuiltin(loopback(), Limits{MaxPageBytes: 1 << 20}, nil)
	res, err := crawlOnce(t, b, 50, s.URL+"/")
	if err != nil {
		t.Fatal(err)
	}
	got := strings.Join(resultURLs(res, s.URL), " ")
	// Breadth first in link order; /a's link to /c comes after the home page's links.
	want := "/ /a /b /private/open /plain.txt /big /d /c"
	if got != want {
		t.Fatalf("pages\n got %s\nwant %s", got, want)
	}
	for _, p := range []string{"/private/secret", "/run.cgi", "/logo.png"} {
		if s.count(p) != 0 {
			t.Errorf("%s was fetched", p)
		}
	}
	if s.count("/data.json") != 1 {
		t.Errorf("/data.json fetched %d times (it is linked; only its type rules it out)", s.count("/data.json"))
	}
	byURL := map[string]string{}
	for _, r := range res {
		byURL[strings.TrimPrefix(r.URL, s.URL)] = r.Content
	}
	if byURL["/plain.txt"] != "Plain text file." {
		t.Errorf("plain text: %q", byURL["/plain.txt"])
	}
	big := byURL["/big"]
	if !strings.HasPrefix(big, "# Big") || !strings.HasSuffix(big, truncatedNote) || strings.Contains(big, "THE END") || len(big) > 1<<20+100 {
		t.Errorf("big page not truncated: %d bytes, ends %q", len(big), big[max(0, len(big)-60):])
	}
	if !strings.Contains(byURL["/d"], "Moved here.") {
		t.Errorf("redirect target content: %q", byURL["/d"])
	}
}

func TestBuiltinRedirects(t *testing.T) {
	s := newSite(t)
	b := NewBuiltin(loopback(), Limits{}, nil)
	cases := []struct {
		path, code, msg string
	}{
		{"/redirect-disallowed", engine.CodeForbidden, "is disallowed for Hearth by the site's robots.txt"},
		{"/redirect-private", engine.CodeForbidden, "destination refused by the outbound address policy: not a public address"},
		{"/loop", engine.CodeUpstream, "stopped after 5 redirects"},
		{"/missing", engine.CodeUpstream, "HTTP 404"},
		{"/data.json", engine.CodeUpstream, "content type application/json is not text/html or text/plain"},
		{"/private/secret", engine.CodeForbidden, "disallowed for Hearth by the site's robots.txt"},
	}
	for _, tc := range cases {
		_, err := crawlOnce(t, b, 1, s.URL+tc.path)
		var ee *engine.Error
		if !errors.As(err, &ee) || ee.Code != tc.code || !strings.Contains(ee.Message, tc.msg) {
			t.Errorf("%s: %v, want %s %q", tc.path, err, tc.code, tc.msg)
		}
	}
	if s.count("/private/secret") != 0 {
		t.Fatal("a redirect reached a page robots.txt disallows")
	}
	if n := s.count("/loop"); n != 6 {
		t.Fatalf("/loop fetched %d times, want 1 + 5 redirects", n)
	}
}

func TestBuiltinStartURLMoves(t *testing.T) {
	s := newSite(t)
	b := NewBuiltin(loopback(), Limits{}, nil)
	res, err := crawlOnce(t, b, 2, s.URL+"/to-localhost")
	if err != nil {
		t.Fatal(err)
	}
	local := strings.Replace(s.URL, "127.0.0.1", "localhost", 1)
	// The crawl continues on the site the start URL moved to.
	if got := strings.Join(resultURLs(res, local), " "); got != "/a /" {
		t.Fatalf("pages %s", got)
	}
}

func TestBuiltinRefusesPrivateAddresses(t *testing.T) {
	s := newSite(t)
	b := NewBuiltin(netguard.Policy{}, Limits{}, nil)
	_, err := crawlOnce(t, b, 5, s.URL+"/")
	var ee *engine.Error
	if !errors.As(err, &ee) || ee.Code != engine.CodeForbidden || ee.Field != "url" ||
		!strings.Contains(ee.Message, "url: "+s.URL+"/: destination refused by the outbound address policy: not a public address (the operator can allow private destinations with HEARTH_OUTBOUND_ALLOW_PRIVATE") {
		t.Fatalf("%v", err)
	}
	if len(s.paths()) != 0 {
		t.Fatalf("the site was reached: %v", s.paths())
	}
}

func TestBuiltinRobotsStatus(t *testing.T) {
	s := newSite(t)
	b := NewBuiltin(loopback(), Limits{}, nil)
	s.status = http.StatusInternalServerError // unreachable robots.txt: nothing is allowed
	if _, err := crawlOnce(t, b, 1, s.URL+"/a"); err == nil || !strings.Contains(err.Error(), "robots.txt") {
		t.Fatalf("5xx robots.txt: %v", err)
	}
	s.status = http.StatusNotFound // no robots.txt: everything is allowed
	res, err := crawlOnce(t, b, 1, s.URL+"/private/secret")
	if err != nil || len(res) != 1 {
		t.Fatalf("404 robots.txt: %v %v", res, err)
	}
}

func TestBuiltinTotalTimeReturnsWhatItHas(t *testing.T) {
	s := newSite(t)
	b := NewBuiltin(loopback(), Limits{TotalTimeout: 300 * time.Millisecond}, nil)
	res, err := crawlOnce(t, b, 5, s.URL+"/links-slow")
	if err != nil || len(res) != 1 || !strings.HasSuffix(res[0].URL, "/links-slow") {
		t.Fatalf("%v %v", res, err)
	}
	_, err = crawlOnce(t, b, 1, s.URL+"/slow")
	var ee *engine.Error
	if !errors.As(err, &ee) || ee.Code != engine.CodeUpstreamTimeout {
		t.Fatalf("slow start page: %v", err)
	}
}

func TestBuiltinSeveralStartURLs(t *testing.T) {
	s := newSite(t)
	b := NewBuiltin(loopback(), Limits{}, nil)
	// Results keep start-URL order; a page reached from two start URLs is
	// returned once; a failing start URL does not fail the others.
	res, err := crawlOnce(t, b, 2, s.URL+"/b", s.URL+"/missing", s.URL+"/a")
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(resultURLs(res, s.URL), " "); got != "/b / /a" {
		t.Fatalf("pages %s", got)
	}
}

func TestBuiltinTotalBytesCap(t *testing.T) {
	s := newSite(t)
	b := NewBuiltin(loopback(), Limits{MaxPageBytes: 1 << 20, MaxTotalBytes: 1<<20 + 1000}, nil)
	res, err := crawlOnce(t, b, 50, s.URL+"/big", s.URL+"/a")
	if err != nil {
		t.Fatal(err)
	}
	var total int
	for _, r := range res {
		total += len(r.Content)
	}
	if total > 1<<20+1000 {
		t.Fatalf("%d bytes returned over a cap of %d", total, 1<<20+1000)
	}
}

// The request's CPU turn is given to others while the sites answer, and
// taken back when the crawl ends.
func TestBuiltinMarksItsWait(t *testing.T) {
	s := newSite(t)
	b := NewBuiltin(loopback(), Limits{}, nil)
	wc := &engine.WaitCount{}
	res, err := b.Crawl(engine.WithTurn(context.Background(), wc), &engine.CrawlJob{URLs: []string{s.URL + "/"}, MaxPages: 2})
	if err != nil || len(res) != 2 {
		t.Fatalf("%d pages, %v", len(res), err)
	}
	if begun, ended := wc.Counts(); begun != 1 || ended != 1 {
		t.Fatalf("%d waits begun, %d ended; want 1, 1", begun, ended)
	}
}

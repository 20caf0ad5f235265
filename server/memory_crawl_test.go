package server_test

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/hearth-dev/hearth/engine"
	"github.com/hearth-dev/hearth/engine/memory"
	"github.com/hearth-dev/hearth/providers/netguard"
	"github.com/hearth-dev/hearth/server/app"
	"github.com/hearth-dev/hearth/server/servertest"
)

// handbookSite is a small intranet site on loopback: linked pages, a page
// robots.txt disallows, a broken link, a private section and a chain of
// pages three links deep. Page bodies can change between crawls, and
// every fetch is counted.
type handbookSite struct {
	*httptest.Server
	mu       sync.Mutex
	pages    map[string]string // path -> <body> HTML
	hits     map[string]int
	gate     chan struct{} // when set, gatePath ("/" by default) waits for it to close
	gatePath string
}

func newHandbookSite(t *testing.T) *handbookSite {
	s := &handbookSite{hits: map[string]int{}, pages: map[string]string{
		"/": `<h1>Handbook</h1><p>Welcome to the team handbook.</p>
			<a href="/guide/install">Install</a> <a href="/guide/config">Config</a>
			<a href="/private/notes">Notes</a> <a href="/secret/plans">Plans</a>
			<a href="/missing">Gone</a> <a href="/deep/1">Deeper</a>`,
		"/guide/install": `<h1>Install</h1><p>Install Hearth by copying the zorbluxite binary onto the host.</p>`,
		"/guide/config":  `<h1>Config</h1><p>Configuration lives in quillerandt files.</p>`,
		"/private/notes": `<p>Private notes nobody should crawl.</p>`,
		"/secret/plans":  `<p>Secret plans.</p>`,
		"/deep/1":        `<p>Level one.</p><a href="/deep/2">next</a>`,
		"/deep/2":        `<p>Level two.</p><a href="/deep/3">next</a>`,
		"/deep/3":        `<p>Level three.</p>`,
	}}
	s.Server = httptest.NewServer(http.HandlerFunc(s.serve))
	t.Cleanup(s.Close)
	return s
}

func (s *handbookSite) serve(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	s.hits[r.URL.Path]++
	body, ok := s.pages[r.URL.Path]
	gate, gatePath := s.gate, s.gatePath
	s.mu.Unlock()
	if gatePath == "" {
		gatePath = "/"
	}
	if r.URL.Path == "/robots.txt" {
		fmt.Fprint(w, "User-agent: *\nDisallow: /secret\n")
		return
	}
	if r.URL.Path == gatePath && gate != nil {
		select {
		case <-gate:
		case <-r.Context().Done():
			return
		}
	}
	if !ok {
		http.NotFound(w, r)
		return
	}
	title := strings.Trim(r.URL.Path, "/")
	if title == "" {
		title = "home"
	}
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	fmt.Fprintf(w, "<html><head><title>Handbook: %s</title></head><body><main>%s</main></body></html>", title, body)
}

func (s *handbookSite) set(path, body string) {
	s.mu.Lock()
	s.pages[path] = body
	s.mu.Unlock()
}

// hold makes requests for path wait until the returned channel is closed.
func (s *handbookSite) hold(path string) chan struct{} {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.gate, s.gatePath = make(chan struct{}), path
	return s.gate
}

func (s *handbookSite) hitsOf(path string) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.hits[path]
}

type crawlOut struct {
	ID         string                `json:"id"`
	Memory     string                `json:"memory"`
	Status     string                `json:"status"`
	Message    string                `json:"message"`
	URL        string                `json:"url"`
	MaxPages   int                   `json:"max_pages"`
	MaxDepth   int                   `json:"max_depth"`
	PagesFound int                   `json:"pages_found"`
	Ingested   int                   `json:"ingested"`
	Unchanged  int                   `json:"unchanged"`
	Failed     int                   `json:"failed"`
	Failures   []memory.CrawlFailure `json:"failures"`
	Node       string                `json:"node"`
}

func startCrawl(t *testing.T, ts *servertest.Server, key, mem string, body map[string]any) crawlOut {
	t.Helper()
	r := ts.Do("POST", "/v1/memory/"+mem+"/documents/crawl", key, body)
	mustStatus(t, r, http.StatusAccepted)
	var c crawlOut
	r.JSON(t, &c)
	if c.ID == "" || c.Status != memory.CrawlQueued {
		t.Fatalf("a new crawl is queued with an id: %s", r.Body)
	}
	return c
}

// waitCrawl polls a crawl until it is completed or failed.
func waitCrawl(t *testing.T, ts *servertest.Server, key, mem, id string) crawlOut {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for {
		r := ts.Do("GET", "/v1/memory/"+mem+"/documents/crawl/"+id, key, nil)
		mustStatus(t, r, 200)
		var c crawlOut
		r.JSON(t, &c)
		if c.Status == memory.CrawlCompleted || c.Status == memory.CrawlFailed {
			return c
		}
		if time.Now().After(deadline) {
			t.Fatalf("crawl %s not done in time: %s", id, r.Body)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

func failureReasons(c crawlOut) map[string]string {
	out := map[string]string{}
	for _, f := range c.Failures {
		out[f.URL] = f.Reason
	}
	return out
}

func TestCrawlIntoMemory(t *testing.T) {
	site := newHandbookSite(t)
	ts := servertest.Start(t)
	key := servertest.AdminKey
	createMemory(t, ts, key, map[string]any{"name": "handbook", "embedding_model": hashModel, "chunk_size": 1000, "chunk_overlap": 0})

	c := startCrawl(t, ts, key, "handbook", map[string]any{"url": site.URL + "/", "max_depth": 2, "exclude": []string{"/private/**"}})
	c = waitCrawl(t, ts, key, "handbook", c.ID)
	if c.Status != memory.CrawlCompleted || c.PagesFound != 7 || c.Ingested != 5 || c.Unchanged != 0 || c.Failed != 2 || c.Node == "" {
		t.Fatalf("first crawl: %+v", c)
	}
	reasons := failureReasons(c)
	if !strings.Contains(reasons[site.URL+"/secret/plans"], "robots.txt") || !strings.Contains(reasons[site.URL+"/missing"], "HTTP 404") {
		t.Fatalf("failures name their reasons: %+v", c.Failures)
	}
	if n := site.hitsOf("/private/notes"); n != 0 {
		t.Fatalf("an excluded page was fetched %d times", n)
	}
	if n := site.hitsOf("/deep/3"); n != 0 || site.hitsOf("/deep/2") != 1 {
		t.Fatalf("max_depth 2: /deep/2 fetched %d times, /deep/3 %d times", site.hitsOf("/deep/2"), n)
	}
	docs := listDocs(t, ts, key, "handbook")
	var names []string
	for _, d := range docs {
		names = append(names, d.Name)
	}
	wantNames := []string{}
	for _, p := range []string{"/", "/guide/install", "/guide/config", "/deep/1", "/deep/2"} {
		wantNames = append(wantNames, memory.CrawlDocumentName(site.URL+p))
	}
	slices.Sort(names)
	slices.Sort(wantNames)
	if !slices.Equal(names, wantNames) {
		t.Fatalf("documents %v, want %v", names, wantNames)
	}
	install := memory.CrawlDocumentName(site.URL + "/guide/install")
	d := waitCompleted(t, ts, key, "handbook", install)
	if d.Meta["url"] != site.URL+"/guide/install" || d.Meta["title"] != "Handbook: guide/install" || d.Meta["crawled_at"] == "" || d.Metadata.Type != "text/markdown" {
		t.Fatalf("crawled document: %+v", d)
	}
	for _, n := range wantNames {
		waitCompleted(t, ts, key, "handbook", n)
	}
	res := retrieve(t, ts, key, map[string]any{"query": "zorbluxite binary", "memory": []any{map[string]any{"name": "handbook"}}, "topK": 1})
	if len(res) != 1 || res[0].DocumentName != install || !strings.Contains(res[0].Text, "zorbluxite") {
		t.Fatalf("retrieval finds the crawled text: %+v", res)
	}

	// One page changes: the re-crawl re-ingests it alone.
	site.set("/guide/config", `<h1>Config</h1><p>Configuration now lives in vexnorbial files.</p>`)
	config := memory.CrawlDocumentName(site.URL + "/guide/config")
	before := findDoc(listDocs(t, ts, key, "handbook"), install)
	c2 := startCrawl(t, ts, key, "handbook", map[string]any{"url": site.URL + "/", "max_depth": 2, "exclude": []string{"/private/**"}})
	c2 = waitCrawl(t, ts, key, "handbook", c2.ID)
	if c2.Status != memory.CrawlCompleted || c2.Ingested != 1 || c2.Unchanged != 4 || c2.Failed != 2 {
		t.Fatalf("re-crawl after one change: %+v", c2)
	}
	waitCompleted(t, ts, key, "handbook", config)
	if after := findDoc(listDocs(t, ts, key, "handbook"), install); after.Meta["crawled_at"] != before.Meta["crawled_at"] || after.Meta["crawl_id"] != c.ID {
		t.Fatalf("an unchanged page was re-ingested: %+v then %+v", before.Meta, after.Meta)
	}
	res = retrieve(t, ts, key, map[string]any{"query": "vexnorbial", "memory": []any{map[string]any{"name": "handbook"}}, "topK": 1})
	if len(res) != 1 || res[0].DocumentName != config || !strings.Contains(res[0].Text, "vexnorbial") {
		t.Fatalf("retrieval finds the changed text: %+v", res)
	}

	r := ts.Do("GET", "/v1/memory/handbook/documents/crawl", key, nil)
	mustStatus(t, r, 200)
	var list []crawlOut
	r.JSON(t, &list)
	if len(list) != 2 || list[0].ID != c2.ID || list[1].ID != c.ID {
		t.Fatalf("crawl list, newest first: %s", r.Body)
	}
}

func TestCrawlIncludePatterns(t *testing.T) {
	site := newHandbookSite(t)
	ts := servertest.Start(t)
	key := servertest.AdminKey
	createMemory(t, ts, key, map[string]any{"name": "guides", "embedding_model": hashModel})
	c := startCrawl(t, ts, key, "guides", map[string]any{"url": site.URL + "/", "include": []string{"/guide/*"}, "max_pages": 1})
	c = waitCrawl(t, ts, key, "guides", c.ID)
	// The start page is read for its links but not taken; max_pages
	// counts the pages taken.
	if c.Status != memory.CrawlCompleted || c.Ingested != 1 || c.PagesFound != 1 {
		t.Fatalf("include /guide/* with max_pages 1: %+v", c)
	}
	docs := listDocs(t, ts, key, "guides")
	if len(docs) != 1 || docs[0].Name != memory.CrawlDocumentName(site.URL+"/guide/install") {
		t.Fatalf("documents: %+v", docs)
	}
	if site.hitsOf("/deep/1") != 0 || site.hitsOf("/guide/config") != 0 {
		t.Fatal("pages outside the include patterns or past max_pages were fetched")
	}
}

func TestCrawlValidationAndConflict(t *testing.T) {
	site := newHandbookSite(t)
	ts := servertest.Start(t)
	key := servertest.AdminKey
	createMemory(t, ts, key, map[string]any{"name": "kb", "embedding_model": hashModel})
	for _, tc := range []struct {
		body  map[string]any
		field string
	}{
		{map[string]any{}, "url"},
		{map[string]any{"url": "ftp://example.com/"}, "url"},
		{map[string]any{"url": "/relative"}, "url"},
		{map[string]any{"url": "http://user:pw@example.com/"}, "url"},
		{map[string]any{"url": site.URL, "max_pages": memory.MaxCrawlPages + 1}, "max_pages"},
		{map[string]any{"url": site.URL, "max_pages": 0}, "max_pages"},
		{map[string]any{"url": site.URL, "max_depth": memory.MaxCrawlDepth + 1}, "max_depth"},
		{map[string]any{"url": site.URL, "max_depth": -1}, "max_depth"},
		{map[string]any{"url": site.URL, "include": []string{"/ok/*", " "}}, "include[1]"},
		{map[string]any{"url": site.URL, "exclude": []string{""}}, "exclude[0]"},
	} {
		r := ts.Do("POST", "/v1/memory/kb/documents/crawl", key, tc.body)
		code, msg := errorOf(t, r)
		if r.Status != 400 || code != "BAD_REQUEST" || !strings.HasPrefix(msg, tc.field+": ") {
			t.Errorf("%v: %d %s %q, want 400 naming %s", tc.body, r.Status, code, msg, tc.field)
		}
	}
	mustStatus(t, ts.Do("POST", "/v1/memory/nope/documents/crawl", key, map[string]any{"url": site.URL}), 404)
	mustStatus(t, ts.Do("GET", "/v1/memory/kb/documents/crawl/nope", key, nil), 404)

	// One crawl of a memory at a time.
	gate := site.hold("/")
	c := startCrawl(t, ts, key, "kb", map[string]any{"url": site.URL + "/", "max_depth": 0})
	r := ts.Do("POST", "/v1/memory/kb/documents/crawl", key, map[string]any{"url": site.URL + "/"})
	if code, _ := errorOf(t, r); r.Status != 409 || code != "CONFLICT" {
		t.Fatalf("a second crawl while one runs: %d %s", r.Status, r.Body)
	}
	close(gate)
	if c = waitCrawl(t, ts, key, "kb", c.ID); c.Status != memory.CrawlCompleted || c.Ingested != 1 {
		t.Fatalf("crawl: %+v", c)
	}
	startCrawl(t, ts, key, "kb", map[string]any{"url": site.URL + "/", "max_depth": 0})
}

// TestCrawlOutboundPolicy: a crawl into a memory follows the outbound
// policy of the built-in crawler, so a server that does not allow
// loopback addresses refuses the site, and the crawl says why.
func TestCrawlOutboundPolicy(t *testing.T) {
	site := newHandbookSite(t)
	ts := servertest.Start(t, servertest.WithOutbound(netguard.Policy{}))
	key := servertest.AdminKey
	createMemory(t, ts, key, map[string]any{"name": "kb", "embedding_model": hashModel})
	c := startCrawl(t, ts, key, "kb", map[string]any{"url": site.URL + "/"})
	c = waitCrawl(t, ts, key, "kb", c.ID)
	if c.Status != memory.CrawlFailed || c.Failed != 1 || !strings.Contains(c.Message, "HEARTH_OUTBOUND") {
		t.Fatalf("a refused site: %+v", c)
	}
	if n := site.hitsOf("/"); n != 0 {
		t.Fatalf("the refused site was fetched %d times", n)
	}
}

// TestCrawlSurvivesRestart: a crawl is a job in the store. A server
// stopped while the crawl is running puts it back in the queue, and the
// next start runs it to the end.
func TestCrawlSurvivesRestart(t *testing.T) {
	site := newHandbookSite(t)
	gate := site.hold("/")
	dir := t.TempDir()
	ts := servertest.StartDir(t, dir)
	key := servertest.AdminKey
	createMemory(t, ts, key, map[string]any{"name": "kb", "embedding_model": hashModel})
	c := startCrawl(t, ts, key, "kb", map[string]any{"url": site.URL + "/", "max_depth": 1, "exclude": []string{"/private/**"}})
	for deadline := time.Now().Add(10 * time.Second); site.hitsOf("/") == 0; {
		if time.Now().After(deadline) {
			t.Fatal("the crawl did not start")
		}
		time.Sleep(5 * time.Millisecond)
	}
	ts.Stop()
	close(gate)
	ts = servertest.StartDir(t, dir)
	c = waitCrawl(t, ts, key, "kb", c.ID)
	if c.Status != memory.CrawlCompleted || c.Ingested != 4 || c.Failed != 2 {
		t.Fatalf("crawl after a restart: %+v", c)
	}
	if n := site.hitsOf("/"); n != 2 {
		t.Fatalf("the start page was fetched %d times, want once per start of the crawl", n)
	}
}

// TestCrawlDeadline: a crawl stops at its deadline and keeps the pages
// taken by then.
func TestCrawlDeadline(t *testing.T) {
	site := newHandbookSite(t)
	site.hold("/guide/config")
	ts := servertest.Start(t, func(c *app.Config) { c.Memory.CrawlTimeout = 2 * time.Second })
	key := servertest.AdminKey
	createMemory(t, ts, key, map[string]any{"name": "kb", "embedding_model": hashModel})
	c := startCrawl(t, ts, key, "kb", map[string]any{"url": site.URL + "/", "max_depth": 1})
	c = waitCrawl(t, ts, key, "kb", c.ID)
	var raw struct {
		Stopped string `json:"stopped"`
	}
	ts.Do("GET", "/v1/memory/kb/documents/crawl/"+c.ID, key, nil).JSON(t, &raw)
	if c.Status != memory.CrawlCompleted || raw.Stopped != "deadline" || c.Ingested != 1 {
		t.Fatalf("a crawl past its deadline: %+v stopped %q", c, raw.Stopped)
	}
}

// TestCrawlRecordsGoWithTheMemory: deleting a memory deletes its crawls;
// a memory created again under the name has none.
func TestCrawlRecordsGoWithTheMemory(t *testing.T) {
	site := newHandbookSite(t)
	ts := servertest.Start(t)
	key := servertest.AdminKey
	createMemory(t, ts, key, map[string]any{"name": "kb", "embedding_model": hashModel})
	c := waitCrawl(t, ts, key, "kb", startCrawl(t, ts, key, "kb", map[string]any{"url": site.URL + "/", "max_depth": 0}).ID)
	mustStatus(t, ts.Do("DELETE", "/v1/memory/kb", key, nil), 200)
	createMemory(t, ts, key, map[string]any{"name": "kb", "embedding_model": hashModel})
	mustStatus(t, ts.Do("GET", "/v1/memory/kb/documents/crawl/"+c.ID, key, nil), 404)
	r := ts.Do("GET", "/v1/memory/kb/documents/crawl", key, nil)
	if mustStatus(t, r, 200); strings.TrimSpace(string(r.Body)) != "[]" {
		t.Fatalf("crawls of the new memory: %s", r.Body)
	}
	n := 0
	ts.Store.View(context.Background(), func(tx engine.Tx) error {
		return tx.Scan("crawl/", "", func(string, []byte) error { n++; return nil })
	})
	if n != 0 {
		t.Fatalf("%d crawl records left after the memory was deleted", n)
	}
}

// TestClusterCrawlTakeover: with two nodes on one database, one node runs
// a crawl under a job lease; when that node dies mid-crawl, the other
// takes the crawl over once the lease has passed and finishes it.
func TestClusterCrawlTakeover(t *testing.T) {
	site := newHandbookSite(t)
	gate := site.hold("/")
	nodes := servertest.StartCluster(t, 2, func(c *app.Config) { c.Memory.LeaseTTL, c.Memory.IdleWait = time.Second, 200*time.Millisecond })
	key := servertest.AdminKey
	createMemory(t, nodes[0], key, map[string]any{"name": "kb", "embedding_model": hashModel})
	c := startCrawl(t, nodes[0], key, "kb", map[string]any{"url": site.URL + "/", "max_depth": 1, "exclude": []string{"/private/**"}})
	var running crawlOut
	for deadline := time.Now().Add(10 * time.Second); running.Status != memory.CrawlRunning || site.hitsOf("/") == 0; {
		if time.Now().After(deadline) {
			t.Fatalf("the crawl did not start: %+v", running)
		}
		time.Sleep(10 * time.Millisecond)
		nodes[1].Do("GET", "/v1/memory/kb/documents/crawl/"+c.ID, key, nil).JSON(t, &running)
	}
	holder, other := nodes[0], nodes[1]
	if running.Node != holder.App.Cluster.Node() {
		holder, other = other, holder
	}
	if running.Node != holder.App.Cluster.Node() {
		t.Fatalf("the crawl names node %q, not one of the cluster's", running.Node)
	}
	if err := holder.Memory.Halt(); err != nil {
		t.Fatal(err)
	}
	close(gate)
	done := waitCrawl(t, other, key, "kb", c.ID)
	if done.Status != memory.CrawlCompleted || done.Node != other.App.Cluster.Node() || done.Ingested != 4 || done.Failed != 2 {
		t.Fatalf("crawl after its node died: %+v", done)
	}
}

// TestDocumentNamedCrawl: the crawl routes leave a document named "crawl"
// reachable: its chunks, retry and delete routes still answer for it.
func TestDocumentNamedCrawl(t *testing.T) {
	ts := servertest.Start(t)
	key := servertest.AdminKey
	createMemory(t, ts, key, map[string]any{"name": "kb", "embedding_model": hashModel})
	upload(t, ts, key, "kb", "crawl", "text/plain", []byte("A document that happens to be named crawl."), nil)
	waitCompleted(t, ts, key, "kb", "crawl")
	r := ts.Do("GET", "/v1/memory/kb/documents/crawl/chunks", key, nil)
	if mustStatus(t, r, 200); !strings.Contains(string(r.Body), "happens to be named crawl") {
		t.Fatalf("chunks of the document named crawl: %s", r.Body)
	}
	r = ts.Do("GET", "/v1/memory/kb/documents/crawl/embeddings/retry", key, nil)
	if mustStatus(t, r, 200); !strings.Contains(string(r.Body), "completed") {
		t.Fatalf("retry of the document named crawl: %s", r.Body)
	}
	mustStatus(t, ts.Do("DELETE", "/v1/memory/kb/documents/crawl", key, nil), 200)
	if docs := listDocs(t, ts, key, "kb"); len(docs) != 0 {
		t.Fatalf("documents after the delete: %+v", docs)
	}
}

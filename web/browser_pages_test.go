//go:build !no_ui

package web_test

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/hearth-dev/hearth/providers/fake"
	"github.com/hearth-dev/hearth/server/servertest"
)

// TestStudioPagesInBrowser drives the newer studio pages in headless
// Chromium against the real server, with fake upstreams on loopback (a
// slowly streaming chat model, an image model, Exa) and a local site for
// the built-in crawler. Screenshots go to testout/studio-pages/.
func TestStudioPagesInBrowser(t *testing.T) {
	requireChromium(t)
	slow := fake.NewOpenAI()
	images := fake.NewOpenAIImages()
	exa := fake.NewExa()
	for _, s := range []*fake.Server{slow, images, exa} {
		t.Cleanup(s.Close)
	}
	slow.SetDefault(fake.Reply{Text: strings.Repeat("slow words keep coming ", 40), ChunkDelay: 150 * time.Millisecond})
	site := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		fmt.Fprint(w, `<html><head><title>Local page</title></head><body><h1>Hearth crawl target</h1><p>Edge installs run one binary.</p></body></html>`)
	}))
	t.Cleanup(site.Close)
	ts := servertest.Start(t,
		servertest.WithProvider("groq", slow.BaseURL(), "sk-slow"),
		servertest.WithProvider("openai", images.BaseURL(), "sk-images"),
		servertest.WithTools(servertest.Tools{ExaURL: exa.URL}))
	b := newBrowserIn(t, ts, "studio-pages")
	defer b.checkClean()
	key := servertest.AdminKey

	mustDo(t, ts.Do("POST", "/v1/pipes", key, map[string]any{"name": "md-pipe", "model": "hearth:echo"}))
	mustDo(t, ts.Do("POST", "/v1/pipes", key, map[string]any{"name": "slow-pipe", "model": "groq:llama-3.1-8b-instant"}))
	signIn(t, b)

	markdownAnswers(t, b)
	stopStreaming(t, b)
	threadsListed(t, b)
	snippetsAndKeyRotation(t, b, ts)
	chunkViewer(t, b, ts)
	agentPage(t, b)
	imagesPage(t, b)
	webToolsPage(t, b, site.URL)
	narrowTables(t, b)
	deletes(t, b, ts)
}

func mustDo(t *testing.T, r *servertest.Response) {
	t.Helper()
	if r.Status != 200 {
		t.Fatalf("setup: %d %s", r.Status, r.Body)
	}
}

// stubClipboard replaces the clipboard API (headless Chromium refuses it
// without a user gesture) by a recorder; it is lost on every navigation.
func stubClipboard(b *browser) {
	b.js("capture the clipboard", `window.__copied = null; navigator.clipboard.writeText = async (t) => { window.__copied = t; }`)
}

func markdownAnswers(t *testing.T, b *browser) {
	b.open("/studio/pipes/admin/md-pipe/playground")
	stubClipboard(b)
	msg := "# Plan\n**bold move** and `inline()` with [a link](https://example.com) and [bad](javascript:alert(1))\n\n" +
		"- one\n- two\n\n```go\nfmt.Println(\"hi\")\n```\n<img src=x onerror=\"window.__xss=1\">"
	b.js("type markdown", `document.querySelector('textarea[name=message]').value = `+jsString(msg))
	b.do("send", chromedp.Click(chromedp.CSS(`#send`)))
	last := `#transcript li.assistant:last-child`
	b.waitJS("markdown rendered", `!!document.querySelector('`+last+` .content.md strong')`, 15*time.Second)
	got := eval[map[string]any](b, `(() => { const c = document.querySelector('`+last+` .content');
		return { strong: c.querySelector('strong')?.textContent, code: c.querySelector('p code')?.textContent,
			items: c.querySelectorAll('ul li').length, pre: c.querySelector('pre code')?.textContent,
			href: c.querySelector('a')?.getAttribute('href'), links: c.querySelectorAll('a').length,
			img: c.querySelectorAll('img').length, xss: !!window.__xss, h: c.querySelector('h3')?.textContent,
			raw: c.textContent.includes('<img src=x') }; })()`)
	want := map[string]any{"strong": "bold move", "code": "inline()", "items": 2.0, "pre": `fmt.Println("hi")`,
		"href": "https://example.com", "links": 1.0, "img": 0.0, "xss": false, "h": "Plan", "raw": true}
	for k, v := range want {
		if got[k] != v {
			t.Errorf("rendered answer: %s = %v, want %v (all: %v)", k, got[k], v, got)
		}
	}
	b.do("copy the code block", chromedp.Click(chromedp.CSS(last+` .codeblock button.copy`)))
	b.waitJS("code copied", `window.__copied === 'fmt.Println("hi")'`, 5*time.Second)
	b.do("copy the answer", chromedp.Click(chromedp.CSS(last+` .msg-tools button.copy`)))
	b.waitJS("answer copied", `(window.__copied || '').startsWith('# Plan') && window.__copied.includes('<img src=x')`, 5*time.Second)
	b.screenshot("playground-markdown")
}

func stopStreaming(t *testing.T, b *browser) {
	b.open("/studio/pipes/admin/slow-pipe/playground")
	b.do("send", chromedp.SendKeys(chromedp.CSS(`textarea[name=message]`), "take your time"), chromedp.Click(chromedp.CSS(`#send`)))
	last := `#transcript li.assistant:last-child`
	b.waitText(last+" .content", "slow words")
	b.do("stop", chromedp.Click(chromedp.CSS(`#stop`)))
	b.waitText(last+" .meta", "Stopped after")
	n := eval[int](b, `document.querySelector('`+last+` .content').textContent.split('slow words').length - 1`)
	if n < 1 || n >= 40 {
		t.Errorf("stopped answer holds %d of 40 phrases; want a part", n)
	}
	if eval[bool](b, `!document.querySelector('#stop').hidden || document.querySelector('#send').disabled`) {
		t.Error("after Stop the composer is not ready again")
	}
	b.screenshot("playground-stopped")
}

func threadsListed(t *testing.T, b *browser) {
	b.open("/studio/threads")
	row := `#threads-table tr[data-thread]`
	b.waitJS("threads", `document.querySelectorAll('`+row+`').length >= 2`, 10*time.Second)
	rows := eval[[]map[string]string](b, `[...document.querySelectorAll('`+row+`')].map((tr) => ({
		first: tr.querySelector('th a').textContent, pipe: tr.querySelector('[data-pipe]').dataset.pipe,
		count: tr.querySelector('[data-count]').dataset.count }))`)
	byPipe := map[string]map[string]string{}
	for _, r := range rows {
		byPipe[r["pipe"]] = r
	}
	if r := byPipe["md-pipe"]; r == nil || !strings.HasPrefix(r["first"], "# Plan") || r["count"] != "2" {
		t.Errorf("md-pipe thread row = %v; want its first message and 2 messages (all: %v)", r, rows)
	}
	if r := byPipe["slow-pipe"]; r == nil || r["first"] != "take your time" {
		t.Errorf("slow-pipe thread row = %v", r)
	}
	b.screenshot("threads-list")
	b.do("open md-pipe's thread", chromedp.Click(chromedp.CSS(`#threads-table tr:has([data-pipe="md-pipe"]) th a`)))
	b.waitJS("continue link", `!!document.querySelector('a[data-continue]')`, 10*time.Second)
	links := eval[[]string](b, `[...document.querySelectorAll('a[data-continue]')].map((a) => a.dataset.continue)`)
	if len(links) != 1 || links[0] != "md-pipe" {
		t.Errorf("the thread continues in %v; want only its own pipe md-pipe", links)
	}
	b.waitJS("markdown in the thread", `!!document.querySelector('#thread-messages li.assistant .content.md strong')`, 5*time.Second)
	b.do("continue", chromedp.Click(chromedp.CSS(`a[data-continue]`)))
	b.waitJS("playground of md-pipe", `location.pathname.endsWith('/md-pipe/playground') && location.search.includes('thread=')`, 10*time.Second)
	b.waitJS("history loaded", `document.querySelectorAll('#transcript > li').length === 2`, 10*time.Second)
}

func snippetsAndKeyRotation(t *testing.T, b *browser, ts *servertest.Server) {
	b.open("/studio/pipes/admin/md-pipe")
	stubClipboard(b)
	b.waitJS("snippets", `document.querySelectorAll('#snippets [data-snippet]').length === 4`, 10*time.Second)
	snips := eval[map[string]string](b, `Object.fromEntries([...document.querySelectorAll('#snippets [data-snippet]')].map((d) => [d.dataset.snippet, d.querySelector('pre').textContent]))`)
	checks := map[string][]string{
		"curl":      {ts.URL + "/v1/pipes/run", `"name":"md-pipe"`, "Authorization: Bearer $HEARTH_KEY"},
		"sdk":       {"new Langbase(", `baseUrl: "` + ts.URL + `"`, `name: "md-pipe"`},
		"openai-js": {`baseURL: "` + ts.URL + `/openai/v1"`, `model: "pipe:md-pipe"`},
		"openai-py": {`base_url="` + ts.URL + `/openai/v1"`, `model="pipe:md-pipe"`},
	}
	for id, wants := range checks {
		for _, w := range wants {
			if !strings.Contains(snips[id], w) {
				t.Errorf("snippet %s lacks %q:\n%s", id, w, snips[id])
			}
		}
	}
	b.do("copy curl", chromedp.Click(chromedp.CSS(`#snippets [data-snippet=curl] button.copy`)))
	b.waitJS("curl copied", `(window.__copied || '').startsWith('curl -N ')`, 5*time.Second)
	b.screenshot("pipe-snippets")

	// Key rotation: the new key runs the pipe, the one before is refused.
	issue := func() string {
		b.t.Helper()
		b.do("new pipe key", chromedp.Click(chromedp.CSS(`#rotate-key`)))
		b.do("confirm", chromedp.WaitVisible(chromedp.CSS(`dialog.confirm`)), chromedp.Click(chromedp.CSS(`dialog.confirm .actions button:last-child`)))
		b.waitJS("key shown", `!!document.querySelector('[data-secret]')`, 10*time.Second)
		k := eval[string](b, `document.querySelector('[data-secret]').textContent`)
		b.js("forget the shown key", `document.querySelector('.reveal').remove()`)
		return k
	}
	first := issue()
	second := issue()
	if first == second || !strings.HasPrefix(second, "hth_pipe_") {
		t.Fatalf("rotation gave %q then %q", first, second)
	}
	run := map[string]any{"messages": []any{map[string]any{"role": "user", "content": "hi"}}, "stream": false}
	if r := ts.Do("POST", "/v1/pipes/run", second, run); r.Status != 200 {
		t.Errorf("the new pipe key: %d %s", r.Status, r.Body)
	}
	if r := ts.Do("POST", "/v1/pipes/run", first, run); r.Status != 401 {
		t.Errorf("the rotated-out pipe key: %d %s; want 401", r.Status, r.Body)
	}
}

func chunkViewer(t *testing.T, b *browser, ts *servertest.Server) {
	key := servertest.AdminKey
	mustDo(t, ts.Do("POST", "/v1/memory", key, map[string]any{"name": "kb", "embedding_model": "hearth:hash-embed", "chunk_size": 100, "chunk_overlap": 0}))
	var up struct {
		SignedURL string `json:"signedUrl"`
	}
	ts.Do("POST", "/v1/memory/documents", key, map[string]any{"memoryName": "kb", "documentName": "guide.md"}).JSON(t, &up)
	var text strings.Builder
	for i := 0; i < 30; i++ {
		fmt.Fprintf(&text, "Paragraph %02d of the edge install guide. ", i)
	}
	mustDo(t, ts.Do("PUT", strings.TrimPrefix(up.SignedURL, ts.URL), "", text.String(), "Content-Type", "text/markdown"))
	b.open("/studio/memory/admin/kb")
	waitDoc(b, "guide.md", "completed")
	b.do("open the document", chromedp.Click(chromedp.CSS(`tr[data-doc="guide.md"] th a`)))
	b.waitJS("chunks", `document.querySelectorAll('#chunk-list li').length > 0`, 10*time.Second)
	summary := eval[string](b, `document.querySelector('#chunk-summary').textContent`)
	n := eval[int](b, `document.querySelectorAll('#chunk-list li').length`)
	if !strings.Contains(summary, fmt.Sprintf("%d chunk", n)) || n < 5 {
		t.Errorf("chunk viewer shows %d chunks, summary %q", n, summary)
	}
	first := eval[string](b, `document.querySelector('#chunk-list li pre').textContent`)
	if !strings.HasPrefix(first, "Paragraph 00") {
		t.Errorf("first chunk %q; want the start of the document", first)
	}
	b.screenshot("chunk-viewer")
}

func agentPage(t *testing.T, b *browser) {
	b.open("/studio/agent")
	b.do("agent run", chromedp.SendKeys(chromedp.CSS(`#agent-form textarea[name=input]`), "**agent** answers"),
		chromedp.Click(chromedp.CSS(`#agent-run`)))
	b.waitJS("agent answer", `document.querySelector('#agent-answer strong')?.textContent === 'agent'`, 15*time.Second)
	b.waitText(`#agent-meta`, "total")

	// A function tool the model calls is shown with its arguments.
	b.js("tools", `document.querySelector('#agent-form textarea[name=input]').value = 'call_tool:lookup {"q":"hearth"}';
		document.querySelector('#agent-form textarea[name=tools]').value = '[{"type":"function","function":{"name":"lookup","parameters":{"type":"object"}}}]'`)
	b.do("agent tool run", chromedp.Click(chromedp.CSS(`#agent-run`)))
	b.waitText(`#agent-output .toolcall[data-tool=lookup]`, "hearth")

	// Bad MCP JSON is refused in the page, naming the field.
	b.js("bad mcp", `document.querySelector('#agent-form textarea[name=mcp_servers]').value = '{"name":'`)
	b.do("agent bad run", chromedp.Click(chromedp.CSS(`#agent-run`)))
	b.waitText(`.error[role=alert]`, "mcp_servers")

	// Stop cancels a slow streamed run.
	b.js("slow model", `document.querySelector('#agent-form textarea[name=mcp_servers]').value = '';
		document.querySelector('#agent-form textarea[name=tools]').value = '';
		document.querySelector('#agent-form input[name=model]').value = 'groq:llama-3.1-8b-instant'`)
	b.do("slow agent run", chromedp.Click(chromedp.CSS(`#agent-run`)))
	b.waitText(`#agent-answer`, "slow words")
	b.do("stop the agent", chromedp.Click(chromedp.CSS(`#agent-stop`)))
	b.waitText(`#agent-meta`, "Stopped after")
	b.screenshot("agent")
}

func imagesPage(t *testing.T, b *browser) {
	b.open("/studio/images")
	b.do("generate", chromedp.SendKeys(chromedp.CSS(`#image-form textarea[name=prompt]`), "a lighthouse at dusk"),
		chromedp.SetValue(chromedp.CSS(`#image-form input[name=custom-model]`), "openai:gpt-image-1"),
		chromedp.SetValue(chromedp.CSS(`#image-form input[name=n]`), "2"),
		chromedp.Click(chromedp.CSS(`#image-run`)))
	b.waitJS("gallery", `document.querySelectorAll('#gallery img').length === 2`, 15*time.Second)
	img := eval[map[string]any](b, `(() => { const i = document.querySelector('#gallery img'); return { src: i.src.slice(0, 22), alt: i.alt, loaded: i.complete && i.naturalWidth > 0 }; })()`)
	if img["src"] != "data:image/png;base64," || img["alt"] != "a lighthouse at dusk" || img["loaded"] != true {
		t.Errorf("gallery image %v", img)
	}
	b.do("bad size", chromedp.SetValue(chromedp.CSS(`#image-form input[name=size]`), "7x7"), chromedp.Click(chromedp.CSS(`#image-run`)))
	b.waitText(`.error[role=alert]`, "size: 7x7 is not supported")
	b.screenshot("images")
}

func webToolsPage(t *testing.T, b *browser, siteURL string) {
	b.open("/studio/web")
	b.do("search", chromedp.SendKeys(chromedp.CSS(`#search-form input[name=query]`), "self-hosted llm"),
		chromedp.SendKeys(chromedp.CSS(`#search-form input[name=search-key]`), "exa-test-key"),
		chromedp.Click(chromedp.CSS(`#search-run`)))
	b.waitJS("search results", `document.querySelectorAll('#search-results li[data-url]').length > 0`, 15*time.Second)
	b.do("crawl", chromedp.SendKeys(chromedp.CSS(`#crawl-form textarea[name=urls]`), siteURL+"/"),
		chromedp.Click(chromedp.CSS(`#crawl-run`)))
	b.waitJS("crawl result", `!!document.querySelector('#crawl-results li[data-url]')`, 20*time.Second)
	b.js("open the page text", `document.querySelector('#crawl-results details').open = true`)
	b.waitText(`#crawl-results li`, "Edge installs run one binary.")
	b.screenshot("web-tools")
}

// narrowTables opens the table pages at 390 px: nothing may be wider than
// the screen, and every link and button in a table must be inside it.
func narrowTables(t *testing.T, b *browser) {
	b.do("390 px", chromedp.EmulateViewport(390, 844))
	defer b.do("desktop", chromedp.EmulateViewport(1280, 900))
	for _, page := range []struct{ path, table string }{
		{"/studio/pipes", "#pipes-table"}, {"/studio/threads", "#threads-table"}, {"/studio/memory/admin/kb", "tr[data-doc]"}, {"/studio/usage", "#runs-table"},
	} {
		b.open(page.path)
		b.waitJS("table on "+page.path, `!!document.querySelector('`+page.table+`')`, 10*time.Second)
		bad := eval[[]string](b, `(() => { const out = []; const w = document.documentElement.clientWidth;
			if (document.documentElement.scrollWidth > w) out.push('page scrolls sideways: ' + document.documentElement.scrollWidth);
			for (const el of document.querySelectorAll('table a, table button')) {
				const r = el.getBoundingClientRect();
				if (r.width > 0 && (r.left < 0 || r.right > w)) out.push(el.textContent + ' at ' + Math.round(r.left) + '..' + Math.round(r.right));
			}
			return out; })()`)
		for _, p := range bad {
			t.Errorf("%s at 390 px: %s", page.path, p)
		}
		labelled := eval[bool](b, `[...document.querySelectorAll('table.stack tbody td')].some((td) => td.dataset.label)`)
		if !labelled {
			t.Errorf("%s: no table cell carries its column label", page.path)
		}
		b.screenshot("narrow-" + slug(page.path))
	}
}

// deletes uses every delete button the new pages lead to: a document, a
// thread, a pipe, each behind its confirmation.
func deletes(t *testing.T, b *browser, ts *servertest.Server) {
	key := servertest.AdminKey
	confirm := func(what string) {
		b.t.Helper()
		b.do("confirm "+what, chromedp.WaitVisible(chromedp.CSS(`dialog.confirm`)), chromedp.Click(chromedp.CSS(`dialog.confirm button.danger`)))
	}
	b.open("/studio/memory/admin/kb")
	waitDoc(b, "guide.md", "completed")
	b.do("delete the document", chromedp.Click(chromedp.CSS(`tr[data-doc="guide.md"] button.danger`)))
	confirm("document")
	b.waitJS("document gone", `!document.querySelector('tr[data-doc="guide.md"]')`, 10*time.Second)
	if r := ts.Do("GET", "/v1/memory/kb/documents/guide.md/chunks", key, nil); r.Status != 404 {
		t.Errorf("deleted document: %d %s", r.Status, r.Body)
	}

	var page struct {
		Data []struct {
			ID   string `json:"id"`
			Pipe string `json:"pipe"`
		} `json:"data"`
	}
	ts.Do("GET", "/v1/threads", key, nil).JSON(t, &page)
	before := len(page.Data)
	b.open("/studio/threads/" + page.Data[0].ID)
	b.do("delete the thread", chromedp.Click(chromedp.CSS(`.page-head button.danger`)))
	confirm("thread")
	b.waitJS("back on threads", `location.pathname === '/studio/threads'`, 10*time.Second)
	ts.Do("GET", "/v1/threads", key, nil).JSON(t, &page)
	if len(page.Data) != before-1 {
		t.Errorf("threads after delete: %d, before %d", len(page.Data), before)
	}

	b.open("/studio/pipes/admin/slow-pipe")
	b.do("delete the pipe", chromedp.Click(chromedp.CSS(`#delete-pipe`)))
	confirm("pipe")
	b.waitJS("pipes list", `location.pathname === '/studio/pipes' && !!document.querySelector('#pipes-table')`, 10*time.Second)
	if eval[bool](b, `!!document.querySelector('tr[data-pipe="slow-pipe"]')`) {
		t.Error("the deleted pipe is still listed")
	}
	if r := ts.Do("GET", "/v1/pipes/slow-pipe", key, nil); r.Status != 404 {
		t.Errorf("deleted pipe: %d", r.Status)
	}
	b.screenshot("after-deletes")
}

//go:build !no_ui

package web_test

import (
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"
	"github.com/hearth-dev/hearth/server/servertest"
)

// a11yProblems lists what a page gets wrong of the basics every studio
// page must have: one h1, a label for every control, a name for every
// button and link, unique ids, a language and a title.
const a11yProblems = `(() => {
	const out = [];
	const visible = (el) => !!(el.offsetWidth || el.offsetHeight || el.getClientRects().length) || el.classList.contains('visually-hidden');
	const h1s = document.querySelectorAll('h1');
	if (h1s.length !== 1) out.push(h1s.length + ' h1 elements');
	if (!document.documentElement.lang) out.push('no lang on <html>');
	if (!document.title.trim()) out.push('empty <title>');
	for (const el of document.querySelectorAll('input:not([type=hidden]), select, textarea')) {
		if (!visible(el)) continue;
		const named = el.labels.length || el.getAttribute('aria-label') || el.getAttribute('aria-labelledby');
		if (!named) out.push('unlabelled ' + el.tagName.toLowerCase() + '[name=' + el.name + ']');
	}
	for (const el of document.querySelectorAll('button, a[href]')) {
		if (!visible(el)) continue;
		if (!(el.textContent.trim() || el.getAttribute('aria-label'))) out.push('nameless ' + el.tagName.toLowerCase());
	}
	const seen = new Set();
	for (const el of document.querySelectorAll('[id]')) {
		if (seen.has(el.id)) out.push('duplicate id ' + el.id);
		seen.add(el.id);
	}
	return out;
})()`

// checkA11y fails the test on the basics a11yProblems finds.
func (b *browser) checkA11y(page string) {
	b.t.Helper()
	for _, p := range eval[[]string](b, a11yProblems) {
		b.t.Errorf("%s: %s", page, p)
	}
}

// sseCases feeds streams through the studio's own SSE reader, sliced into
// pieces of every size down to single bytes (multi-byte characters split
// across reads included).
const sseCases = `(async () => {
	const m = await import('/studio/assets/js/sse.js');
	const enc = new TextEncoder();
	const chunk = (t) => JSON.stringify({choices: [{index: 0, delta: {content: t}}]});
	const cases = {
		crlf: 'data: ' + chunk('hé') + '\r\n\r\ndata: ' + chunk('llo 👋') + '\r\n\r\ndata: [DONE]\r\n\r\n',
		lf: 'data: ' + chunk('hé') + '\n\n: keep-alive\n\ndata: ' + chunk('llo 👋') + '\n\ndata: [DONE]\n\n',
		noDone: 'data: ' + chunk('hé') + '\n\ndata: ' + chunk('llo 👋'),
		afterDone: 'data: ' + chunk('hé') + '\n\ndata: ' + chunk('llo 👋') + '\n\ndata: [DONE]\n\ndata: not json\n\n',
		errorData: 'data: ' + chunk('hé') + '\r\n\r\ndata: {"error":"upstream went away"}\r\n\r\n',
		errorEvent: 'data: ' + chunk('hé') + '\n\nevent: error\ndata: {"message":"bad things"}\n\n',
	};
	const out = {};
	for (const [name, text] of Object.entries(cases)) {
		const bytes = enc.encode(text);
		const results = new Set();
		for (const size of [1, 2, 3, 7, 64, bytes.length]) {
			const body = new ReadableStream({start(c) {
				for (let i = 0; i < bytes.length; i += size) c.enqueue(bytes.slice(i, i + size));
				c.close();
			}});
			const acc = new m.ChatAccumulator();
			let err = '';
			try { await m.readSSE(new Response(body), (x) => acc.add(x)); } catch (e) { err = e.name + ': ' + e.message; }
			results.add(acc.text + '|' + err);
		}
		out[name] = [...results];
	}
	return out;
})()`

func sseParser(t *testing.T, b *browser) {
	got := eval[map[string][]string](b, sseCases)
	want := map[string]string{
		"crlf":       "héllo 👋|",
		"lf":         "héllo 👋|",
		"noDone":     "héllo 👋|",
		"afterDone":  "héllo 👋|",
		"errorData":  "hé|StreamError: upstream went away",
		"errorEvent": "hé|StreamError: bad things",
	}
	for name, w := range want {
		if g := got[name]; len(g) != 1 || g[0] != w {
			t.Errorf("SSE case %s: got %q (one result per slicing), want %q", name, g, w)
		}
	}
}

// keyboard checks the skip link: the first Tab reaches it, Enter moves
// focus to the main content without changing the URL.
func keyboard(t *testing.T, b *browser) {
	b.open("/studio/pipes")
	// The checker itself notices an unlabelled control.
	b.js("add a bad input", `const i = document.createElement('input'); i.id = 'bad-input'; i.name = 'bad'; document.querySelector('main').append(i)`)
	if got := eval[[]string](b, a11yProblems); len(got) != 1 || got[0] != "unlabelled input[name=bad]" {
		t.Errorf("a11y check on an unlabelled input: %q", got)
	}
	b.js("remove it", `document.getElementById('bad-input').remove()`)
	b.js("reset focus", `document.activeElement && document.activeElement.blur()`)
	b.do("tab", chromedp.KeyEvent(kb.Tab))
	if got := eval[string](b, `document.activeElement.textContent`); got != "Skip to main content" {
		t.Errorf("first Tab focuses %q, want the skip link", got)
	}
	b.do("enter", chromedp.KeyEvent(kb.Enter))
	b.waitJS("main focused", `document.activeElement === document.getElementById('main')`, 5*time.Second)
	if u := eval[string](b, `location.pathname + location.search + location.hash`); u != "/studio/pipes" {
		t.Errorf("the skip link changed the URL to %q", u)
	}
}

// errorsAndDeepLinks opens a pipe through the url its create answer
// carries, and checks that a run the server refuses shows the API's message.
func errorsAndDeepLinks(t *testing.T, b *browser, ts *servertest.Server) {
	r := ts.Do(http.MethodPost, "/v1/pipes", servertest.AdminKey, map[string]any{
		"name": "needs-key", "model": "openai:gpt-4o-mini"})
	var created struct {
		URL string `json:"url"`
	}
	r.JSON(t, &created)
	if !strings.HasPrefix(created.URL, ts.URL+"/studio/pipes/admin/needs-key") {
		t.Fatalf("create answered url %q", created.URL)
	}
	b.do("open the url", chromedp.Navigate(created.URL), chromedp.WaitVisible(chromedp.CSS("main h1")))
	b.waitText("main h1", "needs-key")
	b.open("/studio/pipes/admin/needs-key/playground")
	b.do("send", chromedp.SendKeys(chromedp.CSS(`textarea[name=message]`), "hello"), chromedp.Click(chromedp.CSS(`#send`)))
	b.waitJS("run error", `!!document.querySelector('.error[role=alert]:not([hidden])')`, 15*time.Second)
	msg := eval[string](b, `document.querySelector('.error[role=alert]:not([hidden])').textContent`)
	if !strings.Contains(strings.ToLower(msg), "openai") {
		t.Errorf("the playground shows %q; want the API's message about the openai key", msg)
	}
	b.screenshot("playground-error")

	// The same pipe without streaming: the answer comes back as JSON.
	b.open("/studio/pipes/admin/echo-pipe/playground")
	b.do("no stream", chromedp.Click(chromedp.CSS(`input[name=stream]`)),
		chromedp.SendKeys(chromedp.CSS(`textarea[name=message]`), "not streamed"), chromedp.Click(chromedp.CSS(`#send`)))
	b.waitText(`#transcript li.assistant:last-child .content`, "not streamed")
	b.waitJS("usage", `!!document.querySelector('#transcript li.assistant:last-child [data-usage]')`, 10*time.Second)

	// An unknown studio path is a page, not a blank screen.
	b.open("/studio/nowhere")
	b.waitText("main h1", "Page not found")
}

func signOut(t *testing.T, b *browser) {
	b.open("/studio/pipes")
	b.do("sign out", chromedp.Click(chromedp.CSS(`#who button`)))
	b.waitJS("signed out", `location.pathname === '/studio/signin' && !sessionStorage.getItem('hearth.apiKey')`, 5*time.Second)
	b.open("/studio/keys")
	b.waitJS("back to sign-in", `location.pathname === '/studio/signin' && location.search.includes('next=%2Fstudio%2Fkeys')`, 5*time.Second)
}

//go:build !no_ui

package web_test

import (
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
)

// firstHour checks what a newcomer meets: the model picker puts providers
// with a key first and marks the rest, a create on a provider without a
// key shows the server's warning, the playground shows the sources of a
// run with a memory, and the retrieval tester collapses long chunks. It
// runs after keysPage (openai has a keyset) and memoryFlow (echo-pipe has
// the memory docs).
func firstHour(t *testing.T, b *browser) {
	b.open("/studio/keys")
	b.do("set a groq key",
		chromedp.SendKeys(chromedp.CSS(`#keyset-form input[name=provider]`), "groq"),
		chromedp.SendKeys(chromedp.CSS(`#keyset-form input[name=key]`), "gsk-test-abcd1234"),
		chromedp.Click(chromedp.CSS(`#keyset-form button[type=submit]`)))
	b.waitText(`tr[data-provider=groq]`, "…1234")
	b.open("/studio/pipes/new")
	b.waitJS("model picker", `document.querySelectorAll('#pipe-form select[name=model] optgroup').length > 2`, 10*time.Second)
	groups := eval[[]string](b, `[...document.querySelectorAll('#pipe-form select[name=model] optgroup')].map((g) => g.label)`)
	const noKey = " (no API key: add one under Keys)"
	marked := 0
	for i, g := range groups {
		if strings.HasSuffix(g, noKey) {
			marked++
		} else if marked > 0 {
			t.Errorf("group %d %q, with a key, comes after one without", i, g)
		}
	}
	if len(groups) < 4 || groups[0] != "groq" || groups[1] != "hearth" || marked == 0 || !strings.Contains(strings.Join(groups, ","), "anthropic"+noKey) {
		t.Errorf("model picker groups %q: want groq (keyset) first, then hearth, and keyless providers marked last", groups)
	}
	b.screenshot("pipe-new-picker")

	// A memory on a provider without a key: created, with a warning.
	b.open("/studio/memory")
	b.waitJS("defaults loaded", `document.querySelector('#memory-form')?.dataset.defaults === 'loaded'`, 10*time.Second)
	if v := eval[string](b, `document.querySelector('#memory-form input[name=embedding_model]').value`); v != "openai:text-embedding-3-large" {
		t.Errorf("the memory form starts with %q, not the server's default embedder", v)
	}
	b.js("clear the model", `document.querySelector('#memory-form input[name=embedding_model]').value = ''`)
	b.do("create a cohere memory",
		chromedp.SendKeys(chromedp.CSS(`#memory-form input[name=name]`), "nokey"),
		chromedp.SendKeys(chromedp.CSS(`#memory-form input[name=embedding_model]`), "cohere:embed-v4.0"),
		chromedp.Click(chromedp.CSS(`#memory-form button[type=submit]`)))
	b.waitJS("memory page", `location.pathname === '/studio/memory/admin/nokey' && !!document.getElementById('flash')`, 10*time.Second)
	b.waitText(`#flash`, `no API key for provider "cohere"`)
	b.screenshot("memory-warning")

	// A keyword-only memory with one long document: the tester collapses it.
	b.open("/studio/memory")
	b.waitJS("defaults loaded", `document.querySelector('#memory-form')?.dataset.defaults === 'loaded'`, 10*time.Second)
	b.js("clear the model", `document.querySelector('#memory-form input[name=embedding_model]').value = ''`)
	b.do("create a keyword memory",
		chromedp.SendKeys(chromedp.CSS(`#memory-form input[name=name]`), "long"),
		chromedp.SendKeys(chromedp.CSS(`#memory-form input[name=embedding_model]`), "hearth:bm25"),
		chromedp.SetValue(chromedp.CSS(`#memory-form input[name=chunk_size]`), "3000"),
		chromedp.SetValue(chromedp.CSS(`#memory-form input[name=chunk_overlap]`), "0"),
		chromedp.Click(chromedp.CSS(`#memory-form button[type=submit]`)))
	b.waitJS("memory page", `location.pathname === '/studio/memory/admin/long' && !!document.getElementById('dropzone')`, 10*time.Second)
	b.js("drop a long file", `
		const lines = Array.from({length: 30}, (_, i) => 'Line ' + (i + 1) + ' about lighthouses and their keepers.');
		const dt = new DataTransfer();
		dt.items.add(new File([lines.join('\n')], 'lighthouses.txt', {type: 'text/plain'}));
		document.getElementById('dropzone').dispatchEvent(new DragEvent('drop', {dataTransfer: dt, bubbles: true, cancelable: true}))`)
	waitDoc(b, "lighthouses.txt", "completed")
	b.do("retrieve", chromedp.SendKeys(chromedp.CSS(`#retrieve-form input[name=query]`), "lighthouse keepers"),
		chromedp.Click(chromedp.CSS(`#retrieve-form button[type=submit]`)))
	b.waitText(`#retrieve-results li[data-rank="1"]`, "Line 30")
	collapsed := `(() => { const pre = document.querySelector('#retrieve-results li[data-rank="1"] pre');
		return pre.classList.contains('clamped') && pre.clientHeight < pre.scrollHeight; })()`
	if !eval[bool](b, collapsed) {
		t.Error("a 30-line chunk is not collapsed in the retrieval tester")
	}
	b.screenshot("memory-retrieve-collapsed")
	b.js("show all", `document.querySelector('#retrieve-results li[data-rank="1"] button.show-all').click()`)
	if eval[bool](b, collapsed) || eval[string](b, `document.querySelector('#retrieve-results li[data-rank="1"] button.show-all').textContent`) != "Show less" {
		t.Error(`"Show all" does not expand the chunk`)
	}

	// The playground shows the sources of a run with a memory, collapsed.
	b.open("/studio/pipes/admin/echo-pipe/playground")
	b.waitJS("playground", `!!document.querySelector('textarea[name=message]')`, 10*time.Second)
	b.do("ask", chromedp.SendKeys(chromedp.CSS(`textarea[name=message]`), "What is the capital of France?"),
		chromedp.Click(chromedp.CSS(`#send`)))
	b.waitJS("sources", `!!document.querySelector('#transcript li.assistant:last-child details.sources')`, 10*time.Second)
	src := eval[map[string]any](b, `(() => { const d = document.querySelector('#transcript li.assistant:last-child details.sources');
		return {open: d.open, summary: d.querySelector('summary').textContent,
			docs: [...d.querySelectorAll('li[data-document]')].map((li) => li.dataset.document)}; })()`)
	docs, _ := src["docs"].([]any)
	if src["open"] != false || !strings.HasPrefix(src["summary"].(string), "Sources: ") || len(docs) == 0 || docs[0] != "guide.md" {
		t.Errorf("playground sources %v: want a collapsed list led by guide.md", src)
	}
	b.js("open the sources", `document.querySelector('#transcript li.assistant:last-child details.sources').open = true`)
	b.screenshot("playground-sources")
}

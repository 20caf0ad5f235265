//go:build !no_ui

package web_test

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
)

const guide = `# Hearth field guide

Hearth keeps pipes, memories and threads in one binary.

The capital of France is Paris, and the Seine runs through it.

Bread is baked in an oven at a high temperature.
`

func memoryFlow(t *testing.T, b *browser) {
	b.open("/studio/memory")
	b.waitJS("defaults loaded", `document.querySelector('#memory-form')?.dataset.defaults === 'loaded'`, 10*time.Second)
	b.js("clear the model", `document.querySelector('#memory-form input[name=embedding_model]').value = ''`)
	b.do("fill the memory form",
		chromedp.SendKeys(chromedp.CSS(`#memory-form input[name=name]`), "docs"),
		chromedp.SendKeys(chromedp.CSS(`#memory-form input[name=description]`), "Browser test documents"),
		chromedp.SendKeys(chromedp.CSS(`#memory-form input[name=embedding_model]`), "hearth:hash-embed"),
		chromedp.SetValue(chromedp.CSS(`#memory-form input[name=chunk_size]`), "200"),
		chromedp.SetValue(chromedp.CSS(`#memory-form input[name=chunk_overlap]`), "20"),
		chromedp.Click(chromedp.CSS(`#memory-form button[type=submit]`)))
	b.waitJS("memory page", `location.pathname === '/studio/memory/admin/docs'`, 10*time.Second)

	// Upload with the file input (the keyboard path).
	dir := t.TempDir()
	path := filepath.Join(dir, "guide.md")
	if err := os.WriteFile(path, []byte(guide), 0o644); err != nil {
		t.Fatal(err)
	}
	b.do("choose a file", chromedp.SetUploadFiles(chromedp.CSS(`#dropzone input[type=file]`), []string{path}))
	waitDoc(b, "guide.md", "completed")

	// Upload by drag and drop: a drop event carrying a file.
	b.js("drop a file", `
		const dt = new DataTransfer();
		dt.items.add(new File(['Ovens bake bread. Rivers run to the sea.'], 'notes.txt', {type: 'text/plain'}));
		const zone = document.getElementById('dropzone');
		zone.dispatchEvent(new DragEvent('dragover', {dataTransfer: dt, bubbles: true, cancelable: true}));
		zone.dispatchEvent(new DragEvent('drop', {dataTransfer: dt, bubbles: true, cancelable: true}))`)
	waitDoc(b, "notes.txt", "completed")

	// A document that cannot be parsed fails with its message, and offers
	// retry and delete.
	b.js("drop a broken PDF", `
		const dt = new DataTransfer();
		dt.items.add(new File(['this is not a PDF at all'], 'broken.pdf', {type: 'application/pdf'}));
		document.getElementById('dropzone').dispatchEvent(new DragEvent('drop', {dataTransfer: dt, bubbles: true, cancelable: true}))`)
	waitDoc(b, "broken.pdf", "failed")
	msg := eval[string](b, `document.querySelector('tr[data-doc="broken.pdf"] td .field-error')?.textContent || ''`)
	if msg == "" {
		t.Error("a failed document shows no status message")
	}
	if !eval[bool](b, `!!document.querySelector('tr[data-doc="broken.pdf"] button[aria-label="Retry broken.pdf"]')`) {
		t.Error("a failed document has no Retry button")
	}
	b.screenshot("memory-documents")
	// Retry: the announcement says it started; the document fails again.
	b.js("record announcements", `window.__said = [];
		new MutationObserver(() => window.__said.push(document.getElementById('announcer').textContent))
			.observe(document.getElementById('announcer'), {childList: true, characterData: true, subtree: true})`)
	b.js("retry it", `document.querySelector('tr[data-doc="broken.pdf"] button[aria-label="Retry broken.pdf"]').click()`)
	b.waitJS("retry announced", `window.__said.includes('broken.pdf: retry started')`, 10*time.Second)
	b.waitJS("retry done", `document.querySelector('tr[data-doc="broken.pdf"]')?.dataset.status === 'failed' &&
		![...document.querySelectorAll('#documents tr[data-status]')].some((r) => ['queued', 'in_progress'].includes(r.dataset.status))`, 30*time.Second)
	b.js("delete it", `document.querySelector('tr[data-doc="broken.pdf"] button[aria-label="Delete broken.pdf"]').click()`)
	b.do("confirm", chromedp.WaitVisible(chromedp.CSS(`dialog.confirm`)), chromedp.Click(chromedp.CSS(`dialog.confirm button.danger`)))
	b.waitJS("broken.pdf deleted", `!document.querySelector('tr[data-doc="broken.pdf"]')`, 10*time.Second)

	// Retrieval ranks chunks with their similarity and document.
	b.js("clear topK", `document.querySelector('#retrieve-form input[name=topK]').value = '3'`)
	b.do("retrieve", chromedp.SendKeys(chromedp.CSS(`#retrieve-form input[name=query]`), "What is the capital of France?"),
		chromedp.Click(chromedp.CSS(`#retrieve-form button[type=submit]`)))
	b.waitText(`#retrieve-results li[data-rank="1"]`, "Paris")
	top := eval[map[string]string](b, `(() => { const li = document.querySelector('#retrieve-results li[data-rank="1"]');
		return {doc: li.querySelector('.doc').textContent, sim: li.querySelector('.sim').textContent}; })()`)
	if sim, err := strconv.ParseFloat(top["sim"], 64); top["doc"] != "guide.md" || err != nil || sim <= 0 || sim > 1 {
		t.Errorf("top chunk = %v; want guide.md with a similarity", top)
	}
	n := eval[int](b, `document.querySelectorAll('#retrieve-results li').length`)
	if n < 1 || n > 3 {
		t.Errorf("%d chunks for topK 3", n)
	}
	b.screenshot("memory-retrieve")

	b.open("/studio/memory")
	b.waitText(`#memory-table`, "hearth:hash-embed")
	b.screenshot("memory-list")

	// Attach the memory to the pipe from its settings.
	b.open("/studio/pipes/admin/echo-pipe")
	b.do("attach the memory", chromedp.Click(chromedp.CSS(`#pipe-memories input[value=docs]`)),
		chromedp.Click(chromedp.CSS(`#pipe-form button[type=submit]`)))
	b.waitText(`.notice[role=status]`, "Saved echo-pipe")
	b.open("/studio/pipes/admin/echo-pipe")
	if !eval[bool](b, `document.querySelector('#pipe-memories input[value=docs]').checked`) {
		t.Error("the attached memory is not checked after a reload")
	}
}

// waitDoc waits for a document row to reach a status.
func waitDoc(b *browser, name, status string) {
	b.t.Helper()
	b.waitJS(fmt.Sprintf("%s %s", name, status),
		fmt.Sprintf(`document.querySelector('tr[data-doc=%s]')?.dataset.status === %s`, jsString(name), jsString(status)), 30*time.Second)
}

func threadPage(t *testing.T, b *browser, threadID string) {
	b.open("/studio/threads")
	row := fmt.Sprintf(`tr[data-thread=%s]`, jsString(threadID))
	b.waitJS("thread listed", fmt.Sprintf(`!!document.querySelector(%s)`, jsString(row)), 10*time.Second)
	b.screenshot("threads")
	b.do("open the thread", chromedp.Click(chromedp.CSS(row+" a")))
	b.waitText(`#thread-messages`, "hello streaming world from the studio")
	b.waitText(`#thread-messages .toolcall[data-tool=get_weather]`, "Paris")
	b.waitText(`#thread-messages`, "tool result: sunny")
	roles := eval[[]string](b, `[...document.querySelectorAll('#thread-messages li')].map((li) => li.classList[1])`)
	want := []string{"user", "assistant", "user", "assistant", "user", "assistant", "tool", "assistant"}
	if strings.Join(roles, ",") != strings.Join(want, ",") {
		t.Errorf("thread roles = %v, want %v", roles, want)
	}
	b.screenshot("thread")
}

func usagePage(t *testing.T, b *browser) {
	b.open("/studio/usage")
	b.waitJS("charts", `document.querySelectorAll('#chart-tokens rect').length > 0 && !!document.querySelector('#chart-latency circle')`, 15*time.Second)
	runs := eval[int](b, `document.querySelectorAll('#runs-table tr[data-run]').length`)
	if runs < 6 {
		t.Errorf("usage lists %d runs; the playground made 6", runs)
	}
	b.waitJS("egress record", `!!document.querySelector('#egress-policy')`, 10*time.Second)
	if policy := eval[string](b, `document.querySelector('#egress-policy').textContent`); !strings.Contains(policy, "Egress mode open") {
		t.Errorf("usage page egress policy: %q", policy)
	}
	b.screenshot("usage")
	b.do("one pipe", chromedp.SetValue(chromedp.CSS(`#usage-pipe`), "echo-pipe"))
	b.js("change", `document.querySelector('#usage-pipe').dispatchEvent(new Event('change'))`)
	b.waitJS("filtered", `location.search.includes('pipe=echo-pipe') && document.querySelector('#usage-body').getAttribute('aria-busy') === 'false'`, 10*time.Second)
	pipesShown := eval[[]string](b, `[...document.querySelectorAll('#runs-table tr[data-run] td:nth-child(2)')].map((td) => td.textContent)`)
	if len(pipesShown) < 6 {
		t.Errorf("echo-pipe shows %d runs; the test made 6", len(pipesShown))
	}
	for _, p := range pipesShown {
		if p != "echo-pipe" {
			t.Errorf("the echo-pipe filter shows a run of %q", p)
		}
	}
}

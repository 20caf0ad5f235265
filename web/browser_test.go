//go:build !no_ui

package web_test

import (
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/hearth-dev/hearth/server/servertest"
)

// TestStudioInBrowser drives the studio in headless Chromium against the
// real server (offline: hearth:echo and hearth:hash-embed), writing a
// screenshot of every page under testout/studio/. Every flow runs: a
// missing API route fails the flow that needs it rather than skipping it.
func TestStudioInBrowser(t *testing.T) {
	requireChromium(t)
	ts := servertest.Start(t)
	b := newBrowser(t, ts)
	defer b.checkClean()

	signIn(t, b)
	sseParser(t, b)
	keysPage(t, b)
	keyboard(t, b)
	createPipe(t, b)
	threadID := playground(t, b)
	errorsAndDeepLinks(t, b, ts)
	memoryFlow(t, b)
	firstHour(t, b)
	threadPage(t, b, threadID)
	usagePage(t, b)
	signOut(t, b)
}

func signIn(t *testing.T, b *browser) {
	// An app route without a session lands on the sign-in page.
	b.open("/studio/pipes")
	b.waitJS("redirect to sign-in", `location.pathname === '/studio/signin'`, 10*time.Second)
	b.screenshot("signin")

	b.do("wrong key", chromedp.SendKeys(chromedp.CSS(`input[name=key]`), "hth_user_not-a-real-key-000000000"),
		chromedp.Click(chromedp.CSS(`form button[type=submit]`)))
	b.waitJS("sign-in error", `!!document.querySelector('.error[role=alert]:not([hidden])')`, 10*time.Second)
	msg := eval[string](b, `document.querySelector('.error[role=alert]').textContent`)
	if !strings.Contains(strings.ToLower(msg), "key") {
		t.Errorf("a refused key shows %q; want the API's message", msg)
	}

	b.js("clear the key", `document.querySelector('input[name=key]').value = ''`)
	b.do("sign in", chromedp.SendKeys(chromedp.CSS(`input[name=key]`), servertest.AdminKey),
		chromedp.Click(chromedp.CSS(`form button[type=submit]`)))
	b.waitText(`[data-login]`, "admin")
	b.waitJS("pipes page", `location.pathname === '/studio/pipes'`, 10*time.Second)

	stored := eval[string](b, `sessionStorage.getItem('hearth.apiKey') || ''`)
	local := eval[string](b, `JSON.stringify(localStorage)`)
	if stored != servertest.AdminKey {
		t.Errorf("sessionStorage holds %q", stored)
	}
	if strings.Contains(local, servertest.AdminKey) {
		t.Error("the key leaked into localStorage")
	}
}

func keysPage(t *testing.T, b *browser) {
	b.open("/studio/keys")
	b.do("set a provider key",
		chromedp.SendKeys(chromedp.CSS(`#keyset-form input[name=provider]`), "openai"),
		chromedp.SendKeys(chromedp.CSS(`#keyset-form input[name=key]`), "sk-test-abcd1234"),
		chromedp.Click(chromedp.CSS(`#keyset-form button[type=submit]`)))
	b.waitText(`tr[data-provider=openai]`, "…1234")
	page := eval[string](b, `document.body.innerText`)
	if strings.Contains(page, "sk-test-abcd1234") {
		t.Error("the provider key is shown back in full")
	}

	b.do("create an API key",
		chromedp.SendKeys(chromedp.CSS(`#apikey-form input[name=name]`), "ci"),
		chromedp.Click(chromedp.CSS(`#apikey-form button[type=submit]`)))
	b.waitText(`code[data-secret]`, "hth_user_")
	b.screenshot("keys")

	b.js("revoke it", `[...document.querySelectorAll('tr[data-key-id]')]
		.find((r) => r.querySelector('th').textContent === 'ci').querySelector('button.danger').click()`)
	b.do("confirm", chromedp.WaitVisible(chromedp.CSS(`dialog.confirm`)), chromedp.Click(chromedp.CSS(`dialog.confirm button.danger`)))
	b.waitJS("key revoked", `[...document.querySelectorAll('tr[data-key-id]')]
		.some((r) => r.querySelector('th').textContent === 'ci' && r.textContent.includes('revoked'))`, 10*time.Second)

	b.do("remove the provider key", chromedp.Click(chromedp.CSS(`tr[data-provider=openai] button.danger`)),
		chromedp.WaitVisible(chromedp.CSS(`dialog.confirm`)), chromedp.Click(chromedp.CSS(`dialog.confirm button.danger`)))
	b.waitJS("provider key removed", `!document.querySelector('tr[data-provider=openai]')`, 10*time.Second)
}

func createPipe(t *testing.T, b *browser) {
	b.open("/studio/pipes/new")
	b.do("fill the pipe form",
		chromedp.SendKeys(chromedp.CSS(`#pipe-form input[name=name]`), "echo-pipe"),
		chromedp.SendKeys(chromedp.CSS(`#pipe-form textarea[name=description]`), "Echoes for the browser test"),
		chromedp.SetValue(chromedp.CSS(`#pipe-form select[name=model]`), "hearth:echo"),
		chromedp.SendKeys(chromedp.CSS(`#pipe-form textarea[name=prompt-system]`), "You are {{persona}}."),
		chromedp.SetValue(chromedp.CSS(`#pipe-form input[name=temperature]`), "0.2"),
	)
	model := eval[string](b, `document.querySelector('#pipe-form select[name=model]').value`)
	if model != "hearth:echo" {
		t.Fatalf("the model picker lacks hearth:echo (value %q)", model)
	}
	// A retired catalogue model is listed with its retirement and cannot be picked.
	retired := eval[string](b, `(() => { const o = document.querySelector('#pipe-form select[name=model] option[value="google:gemini-2.5-pro"]');
		return o ? (o.disabled ? 'disabled ' : '') + o.textContent : 'missing'; })()`)
	if !strings.HasPrefix(retired, "disabled ") || !strings.Contains(retired, "retired 2026-12-01: use gemini-3.8-flash") {
		t.Errorf("the retired google:gemini-2.5-pro shows as %q", retired)
	}

	// Invalid tools JSON is flagged before anything is sent.
	b.js("clear tools", `document.querySelector('#pipe-form textarea[name=tools]').value = ''`)
	b.do("type bad tools", chromedp.SendKeys(chromedp.CSS(`#pipe-form textarea[name=tools]`), `[{"type":"function"`))
	b.waitJS("tools flagged", `document.querySelector('#pipe-form textarea[name=tools]').getAttribute('aria-invalid') === 'true'`, 5*time.Second)
	b.do("example tool", chromedp.SetValue(chromedp.CSS(`#pipe-form textarea[name=tools]`), "[]"),
		chromedp.Click(`//button[text()="Insert an example tool"]`))
	b.waitJS("tools valid", `document.querySelector('#pipe-form textarea[name=tools]').getAttribute('aria-invalid') === 'false'`, 5*time.Second)

	b.do("add a variable", chromedp.Click(`//button[text()="Add variable"]`),
		chromedp.SendKeys(chromedp.CSS(`#pipe-form input[name=var-name]`), "persona"),
		chromedp.SendKeys(chromedp.CSS(`#pipe-form input[name=var-value]`), "a parrot"),
		chromedp.Click(`//button[text()="Add example message"]`),
		chromedp.SendKeys(chromedp.CSS(`#pipe-form .row textarea[name=content]`), "Say hi"))
	b.screenshot("pipe-new")
	b.do("create", chromedp.Click(chromedp.CSS(`#pipe-form button[type=submit]`)))
	b.waitText(`code[data-secret]`, "hth_pipe_")
	b.waitJS("pipe page", `location.pathname === '/studio/pipes/admin/echo-pipe'`, 10*time.Second)
	b.screenshot("pipe-created")

	// The saved settings come back into the form.
	b.open("/studio/pipes/admin/echo-pipe")
	got := eval[map[string]any](b, `(() => { const f = document.querySelector('#pipe-form'); return {
		temperature: f.querySelector('[name=temperature]').value,
		system: f.querySelector('[name=prompt-system]').value,
		tools: JSON.parse(f.querySelector('[name=tools]').value).length,
		varName: f.querySelector('[name=var-name]').value,
		shot: f.querySelector('.row textarea[name=content]').value,
	}; })()`)
	if got["temperature"] != "0.2" || got["system"] != "You are {{persona}}." || got["tools"] != float64(1) ||
		got["varName"] != "persona" || got["shot"] != "Say hi" {
		t.Errorf("saved pipe reloads as %v", got)
	}
	if strings.Contains(b.text(), "hth_pipe_") {
		t.Error("the pipe key is shown again after a reload")
	}

	// An API error is shown with its message: a temperature out of range
	// passes the browser only when validation is bypassed, so the server's
	// own check answers.
	b.js("bad temperature", `(() => {
		const f = document.querySelector('#pipe-form');
		f.noValidate = true;
		f.querySelector('[name=temperature]').removeAttribute('max');
		f.querySelector('[name=temperature]').value = '5';
		f.requestSubmit();
	})()`)
	b.waitText(`.error[role=alert]`, "temperature")
	b.screenshot("pipe-settings-error")

	b.open("/studio/pipes")
	b.waitText(`#pipes-table`, "echo-pipe")
	b.screenshot("pipes")
}

func playground(t *testing.T, b *browser) string {
	b.open("/studio/pipes/admin/echo-pipe/playground")
	b.waitJS("variables form", `document.querySelector('input[name="var-persona"]').value === 'a parrot'`, 5*time.Second)

	send := func(text string) {
		b.t.Helper()
		b.do("send "+text, chromedp.SendKeys(chromedp.CSS(`textarea[name=message]`), text), chromedp.Click(chromedp.CSS(`#send`)))
	}
	lastAnswer := `#transcript li.assistant:last-child`

	// Count how many separate pieces the answer arrives in.
	b.js("watch the stream", `window.__pieces = 0;
		new MutationObserver((ms) => { for (const m of ms) window.__pieces += m.addedNodes.length; })
			.observe(document.getElementById('transcript'), {childList: true, subtree: true}); true`)
	send("hello streaming world from the studio")
	b.waitText(lastAnswer+" .content", "hello streaming world from the studio")
	b.waitJS("usage", `!!document.querySelector('#transcript li.assistant:last-child [data-usage]')`, 10*time.Second)
	pieces := eval[int](b, `window.__pieces`)
	if pieces < 4 {
		t.Errorf("the answer arrived in %d DOM updates; want it streamed word by word", pieces)
	}
	meta := eval[string](b, `document.querySelector('#transcript li.assistant:last-child .meta').textContent`)
	if !strings.Contains(meta, "tokens") || !strings.Contains(meta, "total") {
		t.Errorf("run meta %q lacks tokens or latency", meta)
	}
	threadID := eval[string](b, `document.querySelector('#thread-id a[data-thread]').dataset.thread`)
	if threadID == "" {
		t.Fatal("no thread id shown after the first run")
	}

	send("second message")
	b.waitText(lastAnswer+" .content", "second message")
	again := eval[string](b, `document.querySelector('#thread-id a[data-thread]').dataset.thread`)
	if again != threadID {
		t.Errorf("the second message moved to thread %q from %q", again, threadID)
	}

	// A tool call is shown, and its result can be sent back.
	send(`call_tool:get_weather {"city":"Paris"}`)
	b.waitText(lastAnswer+" .toolcall[data-tool=get_weather]", "Paris")
	b.do("answer the tool", chromedp.SendKeys(chromedp.CSS(lastAnswer+` textarea[name=tool-result]`), "sunny"),
		chromedp.Click(chromedp.CSS(lastAnswer+` .toolcalls button[type=submit]`)))
	b.waitText(lastAnswer+" .content", "sunny")
	b.screenshot("playground")

	// New thread clears the conversation; the next run gets a new id.
	b.do("new thread", chromedp.Click(chromedp.CSS(`#new-thread`)))
	b.waitJS("cleared", `document.querySelectorAll('#transcript li').length === 0 && !document.querySelector('#thread-id a')`, 5*time.Second)
	send("fresh start")
	b.waitText(lastAnswer+" .content", "fresh start")
	fresh := eval[string](b, `document.querySelector('#thread-id a[data-thread]').dataset.thread`)
	if fresh == "" || fresh == threadID {
		t.Errorf("new thread id %q (old %q)", fresh, threadID)
	}
	return threadID
}

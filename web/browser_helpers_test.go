//go:build !no_ui

package web_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/cdproto/cdp"
	cdplog "github.com/chromedp/cdproto/log"
	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/chromedp"
	"github.com/hearth-dev/hearth/server/servertest"
)

// chromiumPath is where Debian's chromium package puts the browser; the
// test names it explicitly instead of searching the PATH.
const chromiumPath = "/usr/bin/chromium"

// requireChromium skips the test when Chromium is absent on a developer
// machine; in CI (env CI set) a missing browser is a failure.
func requireChromium(t *testing.T) {
	t.Helper()
	if _, err := os.Stat(chromiumPath); err != nil {
		if os.Getenv("CI") != "" {
			t.Fatalf("CI is set but %s is missing (.ci/run installs Debian's chromium package): %v", chromiumPath, err)
		}
		t.Skipf("skipping the studio browser test: %s is not installed (apt-get install chromium); CI runs it", chromiumPath)
	}
}

// outDir is the folder screenshots go to: $HEARTH_TESTOUT/<name>, or
// testout/<name> at the repository root (gitignored). It is emptied first.
func outDir(t *testing.T, name string) string {
	t.Helper()
	root := os.Getenv("HEARTH_TESTOUT")
	if root == "" {
		root = filepath.Join("..", "testout")
	}
	dir := filepath.Join(root, name)
	if err := os.RemoveAll(dir); err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	return dir
}

// browser drives one headless Chromium tab against a test server. It
// records every request the page makes, every console error, uncaught
// exception and browser log error (CSP violations among them), so the test
// can check that the studio stays on its own origin and runs cleanly.
type browser struct {
	t    *testing.T
	ctx  context.Context
	base string
	out  string
	shot int

	mu       sync.Mutex
	requests []string
	problems []string
}

func newBrowser(t *testing.T, ts *servertest.Server) *browser {
	t.Helper()
	return newBrowserIn(t, ts, "studio")
}

// newBrowserIn is newBrowser writing its screenshots to outDir(t, dir).
func newBrowserIn(t *testing.T, ts *servertest.Server, dir string) *browser {
	t.Helper()
	opts := []chromedp.ExecAllocatorOption{
		chromedp.ExecPath(chromiumPath),
		chromedp.Flag("headless", true),
		chromedp.NoSandbox,
		chromedp.DisableGPU,
		chromedp.Flag("disable-quic", true),
		chromedp.NoFirstRun,
		chromedp.NoDefaultBrowserCheck,
		chromedp.Flag("disable-background-networking", true),
		chromedp.Flag("disable-component-update", true),
		chromedp.Flag("disable-sync", true),
		chromedp.Flag("disable-dev-shm-usage", true),
		chromedp.Flag("disable-extensions", true),
		chromedp.Flag("mute-audio", true),
		chromedp.Flag("hide-scrollbars", true),
		chromedp.UserDataDir(t.TempDir()),
		chromedp.WindowSize(1280, 900),
	}
	actx, cancelAlloc := chromedp.NewExecAllocator(context.Background(), opts...)
	ctx, cancelCtx := chromedp.NewContext(actx)
	t.Cleanup(func() {
		cancelCtx()
		cancelAlloc()
	})
	b := &browser{t: t, ctx: ctx, base: ts.URL, out: outDir(t, dir)}
	// The first call starts the browser; it must not carry a timeout.
	if err := chromedp.Do(ctx); err != nil {
		t.Fatalf("start %s: %v", chromiumPath, err)
	}
	if err := chromedp.Listen(ctx, b.record); err != nil {
		t.Fatal(err)
	}
	if _, err := chromedp.Call(ctx, network.Enable, network.EnableParams{}); err != nil {
		t.Fatal(err)
	}
	if _, err := chromedp.Call(ctx, cdplog.Enable, cdp.Empty{}); err != nil {
		t.Fatal(err)
	}
	return b
}

// record runs on chromedp's reader goroutine: it only appends.
func (b *browser) record(ev any) {
	b.mu.Lock()
	defer b.mu.Unlock()
	switch e := ev.(type) {
	case *network.EventRequestWillBeSent:
		b.requests = append(b.requests, e.Request.URL)
	case *runtime.EventExceptionThrown:
		d := e.ExceptionDetails
		msg := d.Text
		if d.Exception != nil && d.Exception.Description != "" {
			msg += " " + d.Exception.Description
		}
		b.problems = append(b.problems, "uncaught exception: "+msg)
	case *runtime.EventConsoleAPICalled:
		if e.Type == runtime.ConsoleAPICalledTypeError {
			var parts []string
			for _, a := range e.Args {
				parts = append(parts, string(a.Value)+a.Description)
			}
			b.problems = append(b.problems, "console.error: "+strings.Join(parts, " "))
		}
	case *cdplog.EventEntryAdded:
		// Network entries are the API's own error answers, which the
		// test provokes on purpose; anything else (CSP, JS) is a problem.
		if e.Entry.Level == cdplog.EntryLevelError && e.Entry.Source != cdplog.EntrySourceNetwork {
			b.problems = append(b.problems, fmt.Sprintf("browser log (%s): %s %s", e.Entry.Source, e.Entry.Text, e.Entry.URL))
		}
	}
}

// do runs actions with a deadline, failing the test on error.
func (b *browser) do(what string, actions ...chromedp.Action[chromedp.Void]) {
	b.t.Helper()
	ctx, cancel := context.WithTimeout(b.ctx, 30*time.Second)
	defer cancel()
	if err := chromedp.Do(ctx, actions...); err != nil {
		b.screenshot("failed-" + slug(what))
		b.t.Fatalf("%s: %v\npage text:\n%s", what, err, b.text())
	}
}

// text returns the visible text of the page (for failure messages).
func (b *browser) text() string {
	ctx, cancel := context.WithTimeout(b.ctx, 5*time.Second)
	defer cancel()
	s, _ := chromedp.Run(ctx, chromedp.Evaluate[string](`document.body ? document.body.innerText : ''`))
	return s
}

// open navigates to a studio path and waits for the page's <h1>.
func (b *browser) open(path string) {
	b.t.Helper()
	b.do("open "+path, chromedp.Navigate(b.base+path), chromedp.WaitVisible(chromedp.CSS("main h1")))
}

// waitJS polls a JavaScript expression until it is truthy.
func (b *browser) waitJS(what, expr string, timeout time.Duration) {
	b.t.Helper()
	ctx, cancel := context.WithTimeout(b.ctx, timeout+5*time.Second)
	defer cancel()
	_, err := chromedp.Run(ctx, chromedp.Poll[any](expr,
		chromedp.WithPollingInterval(50*time.Millisecond), chromedp.WithPollingTimeout(timeout)))
	if err != nil {
		b.screenshot("failed-" + slug(what))
		b.t.Fatalf("waiting for %s (%s): %v\npage text:\n%s", what, expr, err, b.text())
	}
}

// waitText waits until the element matching selector contains text.
func (b *browser) waitText(selector, text string) {
	b.t.Helper()
	b.waitJS(fmt.Sprintf("%q in %s", text, selector),
		fmt.Sprintf(`(() => { const el = document.querySelector(%s); return !!el && el.textContent.includes(%s); })()`,
			jsString(selector), jsString(text)), 20*time.Second)
}

// eval evaluates an expression (awaiting a promise) and decodes it as T.
func eval[T any](b *browser, expr string) T {
	b.t.Helper()
	ctx, cancel := context.WithTimeout(b.ctx, 30*time.Second)
	defer cancel()
	v, err := chromedp.Run(ctx, chromedp.Evaluate[T](expr, chromedp.EvalAwaitPromise))
	if err != nil {
		b.t.Fatalf("evaluate %s: %v", expr, err)
	}
	return v
}

// js runs a statement for its effect.
func (b *browser) js(what, expr string) {
	b.t.Helper()
	ctx, cancel := context.WithTimeout(b.ctx, 30*time.Second)
	defer cancel()
	if _, err := chromedp.Run(ctx, chromedp.Evaluate[any](`(async () => { `+expr+`; })()`, chromedp.EvalAwaitPromise)); err != nil {
		b.t.Fatalf("%s: %v", what, err)
	}
}

// screenshot writes a full-page PNG named NN-name.png and checks it is a
// real, non-empty image.
func (b *browser) screenshot(name string) {
	b.t.Helper()
	ctx, cancel := context.WithTimeout(b.ctx, 20*time.Second)
	defer cancel()
	buf, err := chromedp.Run(ctx, chromedp.FullScreenshot(100))
	if err != nil {
		b.t.Errorf("screenshot %s: %v", name, err)
		return
	}
	if len(buf) < 1000 || !bytes.HasPrefix(buf, []byte("\x89PNG")) {
		b.t.Errorf("screenshot %s: %d bytes, not a PNG image", name, len(buf))
		return
	}
	b.shot++
	path := filepath.Join(b.out, fmt.Sprintf("%02d-%s.png", b.shot, name))
	if !strings.HasPrefix(name, "failed-") {
		defer b.checkA11y(name)
	}
	if err := os.WriteFile(path, buf, 0o644); err != nil {
		b.t.Errorf("screenshot %s: %v", name, err)
	}
}

// checkClean fails on console errors, exceptions, and any request that
// left the server's origin.
func (b *browser) checkClean() {
	b.t.Helper()
	b.mu.Lock()
	defer b.mu.Unlock()
	for _, p := range b.problems {
		b.t.Errorf("browser reported: %s", p)
	}
	b.problems = nil
	for _, u := range b.requests {
		if !strings.HasPrefix(u, b.base+"/") && !strings.HasPrefix(u, "data:") && u != "about:blank" {
			b.t.Errorf("the studio requested a URL outside its origin: %s", u)
		}
	}
	if len(b.requests) == 0 {
		b.t.Error("no network requests were recorded")
	}
}

func slug(s string) string {
	s = strings.ToLower(s)
	var out []rune
	for _, r := range s {
		if (r >= 'a' && r <= 'z') || (r >= '0' && r <= '9') {
			out = append(out, r)
		} else if len(out) > 0 && out[len(out)-1] != '-' {
			out = append(out, '-')
		}
	}
	if len(out) > 40 {
		out = out[:40]
	}
	return strings.Trim(string(out), "-")
}

func jsString(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}

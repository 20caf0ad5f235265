//go:build !no_ui

package web_test

import (
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/hearth-dev/hearth/server/servertest"
)

// TestStudioRunDetailInBrowser: the Usage page lists agent runs next to
// pipe runs with their kind, and a run opens its detail view: the record
// and, for a pipe with log_content, the messages sent and the completion
// with keys redacted; a run without the option says nothing was stored;
// the pipe form's Log content box turns the option on, and the Usage
// page's Run content form sets the owner's option and retention.
func TestStudioRunDetailInBrowser(t *testing.T) {
	requireChromium(t)
	ts := servertest.Start(t)
	b := newBrowserIn(t, ts, "studio-runlog")
	defer b.checkClean()
	key := servertest.AdminKey
	mustDo(t, ts.Do("POST", "/v1/pipes", key, map[string]any{"name": "logged", "model": "hearth:echo", "log_content": true}))
	mustDo(t, ts.Do("POST", "/v1/pipes/run", key, map[string]any{"name": "logged",
		"messages": []any{map[string]any{"role": "user", "content": "hello sk-abcdefghijklmnopqrstuvwxyz0123"}}}))
	mustDo(t, ts.Do("POST", "/v1/agent/run", key, map[string]any{"model": "hearth:echo", "input": "agent hello"}))
	ts.RunLog.Flush()
	signIn(t, b)

	b.open("/studio/usage")
	b.waitJS("two runs listed", `document.querySelectorAll('#runs-table tbody tr').length === 2`, 10*time.Second)
	kinds := eval[string](b, `[...document.querySelectorAll('#runs-table tbody tr')].map((r) => r.children[2].textContent).join(',')`)
	if kinds != "agent,pipe" {
		t.Errorf("usage kinds %q, want agent,pipe", kinds)
	}
	b.do("open the pipe run", chromedp.Click(chromedp.CSS(`#runs-table tbody tr:nth-child(2) a[data-run-link]`)))
	b.waitJS("run detail", `!!document.querySelector('#run-completion')`, 10*time.Second)
	msgs := eval[string](b, `document.querySelector('#run-messages').textContent`)
	if !strings.Contains(msgs, "hello [REDACTED]") || strings.Contains(msgs, "sk-abc") {
		t.Errorf("run detail messages %q", msgs)
	}
	if k := eval[string](b, `document.querySelector('#run-kind').textContent`); k != "pipe" {
		t.Errorf("run detail kind %q", k)
	}
	b.screenshot("run-detail")

	b.open("/studio/usage")
	b.waitJS("runs listed", `document.querySelectorAll('#runs-table tbody tr').length === 2`, 10*time.Second)
	b.do("open the agent run", chromedp.Click(chromedp.CSS(`#runs-table tbody tr:nth-child(1) a[data-run-link]`)))
	b.waitJS("agent detail", `!!document.querySelector('#run-no-content')`, 10*time.Second)
	if k := eval[string](b, `document.querySelector('#run-kind').textContent`); k != "agent" {
		t.Errorf("agent run kind %q", k)
	}
	mustDo(t, ts.Do("POST", "/v1/pipes", key, map[string]any{"name": "plain", "model": "hearth:echo"}))
	b.open("/studio/pipes/admin/plain")
	b.do("turn on log content", chromedp.Click(chromedp.CSS(`#pipe-form input[name=log_content]`)),
		chromedp.Click(chromedp.CSS(`#pipe-form button[type=submit]`)))
	b.waitText(`.notice[role=status]`, "Saved plain")
	var p struct {
		LogContent bool `json:"log_content"`
	}
	ts.Do("GET", "/v1/pipes/plain", key, nil).JSON(t, &p)
	if !p.LogContent {
		t.Error("the pipe form's Log content box did not turn log_content on")
	}

	b.open("/studio/usage")
	b.do("owner setting", chromedp.WaitVisible(chromedp.CSS(`#run-settings`)),
		chromedp.Click(chromedp.CSS(`#run-settings input[name=log_content]`)),
		chromedp.SendKeys(chromedp.CSS(`#run-settings input[name=retention]`), "3d"),
		chromedp.Click(chromedp.CSS(`#run-settings button[type=submit]`)))
	b.waitText(`#run-settings-status`, "kept for 3d")
	var set struct {
		LogContent bool   `json:"log_content"`
		Retention  string `json:"retention"`
	}
	ts.Do("GET", "/v1/runs/settings", key, nil).JSON(t, &set)
	if !set.LogContent || set.Retention != "3d" {
		t.Errorf("owner setting saved from the studio: %+v", set)
	}
}

//go:build !no_ui

package web_test

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/hearth-dev/hearth/server/servertest"
)

// TestStudioGovernanceInBrowser drives the pipe History tab (versions,
// a diff, a restore that the API then serves) and scoped keys on the Keys
// page (created from the form, listed with their scope, stored as sent).
func TestStudioGovernanceInBrowser(t *testing.T) {
	requireChromium(t)
	ts := servertest.Start(t)
	b := newBrowserIn(t, ts, "studio-governance")
	defer b.checkClean()
	key := servertest.AdminKey
	mustDo(t, ts.Do("POST", "/v1/pipes", key, map[string]any{"name": "hist", "model": "hearth:echo", "temperature": 0.7}))
	mustDo(t, ts.Do("POST", "/v1/pipes/hist", key, map[string]any{"temperature": 0.3, "description": "second"}))
	signIn(t, b)

	b.open("/studio/pipes/admin/hist/history")
	b.waitJS("two versions listed", `document.querySelectorAll('#versions tbody tr').length === 2`, 10*time.Second)
	b.do("show the diff", chromedp.Click(chromedp.CSS(`#diff-form button[type=submit]`)))
	b.waitJS("diff rows", `!!document.querySelector('#version-diff tr[data-field=temperature]')`, 10*time.Second)
	fields := eval[string](b, `[...document.querySelectorAll('#version-diff tbody tr')].map((r) => r.dataset.field).join(',')`)
	if fields != "description,temperature" {
		t.Errorf("diff fields %q, want description,temperature", fields)
	}
	b.screenshot("pipe-history-diff")
	b.do("restore version 1", chromedp.Click(chromedp.CSS(`#versions tr[data-version="1"] button`)))
	b.do("confirm", chromedp.WaitVisible(chromedp.CSS(`dialog.confirm`)), chromedp.Click(chromedp.CSS(`dialog.confirm .actions button:last-child`)))
	b.waitJS("version 3 listed", `!!document.querySelector('#versions tr[data-version="3"]')`, 10*time.Second)
	var p struct {
		Temperature float64 `json:"temperature"`
		Description string  `json:"description"`
	}
	ts.Do("GET", "/v1/pipes/hist", key, nil).JSON(t, &p)
	if p.Temperature != 0.7 || p.Description != "" {
		t.Errorf("after restore in the studio the pipe is %+v, want version 1", p)
	}

	b.open("/studio/keys")
	b.do("fill the scope", chromedp.SendKeys(chromedp.CSS(`#apikey-form input[name=name]`), "scoped-ci"),
		chromedp.SendKeys(chromedp.CSS(`#apikey-form input[name=pipes]`), "hist, other"),
		chromedp.SendKeys(chromedp.CSS(`#apikey-form input[name=models]`), "hearth"),
		chromedp.Click(chromedp.CSS(`#apikey-form input[name=read_only]`)),
		chromedp.Click(chromedp.CSS(`#apikey-form button[type=submit]`)))
	b.waitText(`main`, "pipes: hist, other")
	b.screenshot("keys-scoped")
	var keys []struct {
		Name  string          `json:"name"`
		Scope json.RawMessage `json:"scope"`
	}
	ts.Do("GET", "/v1/keys", key, nil).JSON(t, &keys)
	found := false
	for _, k := range keys {
		if k.Name == "scoped-ci" {
			found = true
			if s := string(k.Scope); !strings.Contains(s, `"pipes":["hist","other"]`) || !strings.Contains(s, `"models":["hearth"]`) || !strings.Contains(s, `"read_only":true`) {
				t.Errorf("scope stored from the studio: %s", s)
			}
		}
	}
	if !found {
		t.Errorf("the studio's scoped key is not listed: %+v", keys)
	}
}

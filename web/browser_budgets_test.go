//go:build !no_ui

package web_test

import (
	"context"
	"strconv"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/hearth-dev/hearth/engine"
	"github.com/hearth-dev/hearth/server/servertest"
)

// TestStudioBudgetsInBrowser: the Usage page lists the owner's budgets
// with their use this period (as GET /v1/budgets counts it), marks a
// reached one, sets a key's budget from its form and deletes one.
func TestStudioBudgetsInBrowser(t *testing.T) {
	requireChromium(t)
	ts := servertest.Start(t)
	b := newBrowserIn(t, ts, "studio-budgets")
	defer b.checkClean()
	key := servertest.AdminKey
	mustDo(t, ts.Do("POST", "/v1/pipes", key, map[string]any{"name": "spend", "model": "hearth:echo"}))
	mustDo(t, ts.Do("POST", "/v1/budgets", key, map[string]any{"period": "month", "limit_tokens": 8}))
	for range 2 {
		mustDo(t, ts.Do("POST", "/v1/pipes/run", key, map[string]any{"name": "spend", "messages": []any{map[string]any{"role": "user", "content": "two words"}}}))
	}
	ts.RunLog.Flush()
	var list []engine.BudgetStatus
	ts.Do("GET", "/v1/budgets", key, nil).JSON(t, &list)
	if len(list) != 1 || list[0].UsedTokens < 8 {
		t.Fatalf("setup: the budget should be reached: %+v", list)
	}
	rec, _, err := ts.Accounts.CreateKey(context.Background(), "admin", "ci")
	if err != nil {
		t.Fatal(err)
	}
	signIn(t, b)

	b.open("/studio/usage")
	b.waitJS("the budget row", `!!document.querySelector('#budgets-table tr[data-budget="bgt_month_owner"]')`, 15*time.Second)
	row := `document.querySelector('#budgets-table tr[data-budget="bgt_month_owner"]')`
	if got := eval[string](b, row+`.dataset.reached`); got != "true" {
		t.Errorf("a used-up budget is shown with data-reached=%q", got)
	}
	want := list[0].UsedTokens
	if got := eval[string](b, row+`.querySelector('td:nth-child(4)').textContent`); got != strconv.FormatInt(want, 10)+" of 8 " {
		t.Errorf("token use shown as %q, want %d of 8", got, want)
	}
	b.screenshot("usage-budgets")

	b.do("set a key budget", chromedp.SetValue(chromedp.CSS(`#budget-form select[name=key_id]`), rec.ID),
		chromedp.SetValue(chromedp.CSS(`#budget-form select[name=period]`), "day"),
		chromedp.SendKeys(chromedp.CSS(`#budget-form input[name=limit_usd]`), "2.5"),
		chromedp.Click(chromedp.CSS(`#budget-form button[type=submit]`)))
	b.waitJS("the key's budget row", `!!document.querySelector('#budgets-table tr[data-budget="bgt_day_`+rec.ID+`"]')`, 10*time.Second)
	ts.Do("GET", "/v1/budgets", key, nil).JSON(t, &list)
	if len(list) != 2 || list[0].KeyID != rec.ID || list[0].Period != "day" || list[0].LimitUSD == nil || *list[0].LimitUSD != 2.5 {
		t.Fatalf("budgets after the studio form: %+v", list)
	}

	b.do("delete the owner budget", chromedp.Click(chromedp.CSS(`#budgets-table tr[data-budget="bgt_month_owner"] button`)))
	b.do("confirm", chromedp.WaitVisible(chromedp.CSS(`dialog.confirm`)), chromedp.Click(chromedp.CSS(`dialog.confirm .actions button:last-child`)))
	b.waitJS("row gone", `!document.querySelector('#budgets-table tr[data-budget="bgt_month_owner"]')`, 10*time.Second)
	ts.Do("GET", "/v1/budgets", key, nil).JSON(t, &list)
	if len(list) != 1 || list[0].KeyID != rec.ID {
		t.Fatalf("budgets after the studio delete: %+v", list)
	}
}

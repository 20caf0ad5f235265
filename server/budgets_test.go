package server_test

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/hearth-dev/hearth/engine"
	"github.com/hearth-dev/hearth/providers/fake"
	"github.com/hearth-dev/hearth/server/app"
	"github.com/hearth-dev/hearth/server/servertest"
)

// budgetServer is a server whose budgets read a clock the test moves,
// over a fake OpenAI whose every answer costs 100000 prompt tokens
// ($0.015 at gpt-4o-mini's list price).
func budgetServer(t *testing.T, start time.Time, opts ...servertest.Option) (*servertest.Server, *fake.Server, *atomic.Int64) {
	t.Helper()
	up := fake.NewOpenAI()
	t.Cleanup(up.Close)
	up.SetDefault(fake.Reply{Usage: fake.Usage{PromptTokens: 100000}})
	clock := &atomic.Int64{}
	clock.Store(start.UnixNano())
	opts = append([]servertest.Option{servertest.WithProvider("openai", up.BaseURL(), "sk-test"),
		servertest.WithServices(func(a *app.App) {
			a.Deps.Budgets.SetClock(func() time.Time { return time.Unix(0, clock.Load()).UTC() })
		})}, opts...)
	ts := servertest.Start(t, opts...)
	if r := ts.Do("POST", "/v1/pipes", admin, map[string]any{"name": "p", "model": "openai:gpt-4o-mini"}); r.Status != 200 {
		t.Fatalf("create pipe: %d %s", r.Status, r.Body)
	}
	return ts, up, clock
}

func runPipe(ts *servertest.Server, key string) *servertest.Response {
	return ts.Do("POST", "/v1/pipes/run", key, map[string]any{"name": "p", "messages": []any{user("hi")}})
}

// budgetRefused checks a 429 from a budget: the code, a message naming
// the budget, and its reset time in lb-budget-reset and Retry-After.
func budgetRefused(t *testing.T, what string, r *servertest.Response, budgetID string, reset time.Time, now time.Time) {
	t.Helper()
	retry := int(reset.Sub(now).Seconds())
	if r.Status != 429 || r.Header.Get("lb-budget-reset") != reset.Format(time.RFC3339) ||
		r.Header.Get("Retry-After") != strconv.Itoa(retry) || !strings.Contains(string(r.Body), "budget exceeded") ||
		!strings.Contains(string(r.Body), budgetID) || !strings.Contains(string(r.Body), engine.CodeRateLimited) {
		t.Fatalf("%s: want a 429 from budget %s resetting %s (Retry-After %d), got %d %v %s",
			what, budgetID, reset.Format(time.RFC3339), retry, r.Status, r.Header, r.Body)
	}
}

// TestBudgetMonthBlocksPipeRunsAndResets: an owner's monthly dollar budget
// reached mid-month refuses the next run before the model is called, and
// runs again from the first of the next month (UTC).
func TestBudgetMonthBlocksPipeRunsAndResets(t *testing.T) {
	mid := time.Date(2026, 3, 15, 10, 0, 0, 0, time.UTC)
	ts, up, clock := budgetServer(t, mid)
	r := ts.Do("POST", "/v1/budgets", admin, map[string]any{"period": "month", "limit_usd": 0.03})
	if r.Status != 200 {
		t.Fatalf("create: %d %s", r.Status, r.Body)
	}
	for range 2 {
		allowed(t, "run within the budget", runPipe(ts, admin))
		ts.RunLog.Flush()
	}
	calls := up.Count()
	reset := time.Date(2026, 4, 1, 0, 0, 0, 0, time.UTC)
	budgetRefused(t, "third run", runPipe(ts, admin), "bgt_month_owner", reset, mid)
	if up.Count() != calls {
		t.Fatal("a run refused by its budget reached the model")
	}
	var list []engine.BudgetStatus
	ts.Do("GET", "/v1/budgets", admin, nil).JSON(t, &list)
	if len(list) != 1 || list[0].UsedTokens != 200000 || list[0].UsedUSD < 0.0299999 || list[0].UsedUSD > 0.0300001 ||
		!list[0].ResetsAt.Equal(reset) || list[0].Owner != "admin" || *list[0].LimitUSD != 0.03 {
		t.Fatalf("budgets %+v", list)
	}
	// The OpenAI surface is refused too, in OpenAI's error shape.
	r = ts.Do("POST", "/openai/v1/chat/completions", admin, map[string]any{"model": "pipe:p", "messages": []any{user("hi")}})
	if r.Status != 429 || !strings.Contains(string(r.Body), `"type"`) || r.Header.Get("lb-budget-reset") == "" {
		t.Fatalf("openai pipe run: %d %s", r.Status, r.Body)
	}
	clock.Store(reset.UnixNano())
	allowed(t, "a new month", runPipe(ts, admin))
}

// TestBudgetPerKeyDaily: a key's daily token budget refuses that key on
// every spending path and leaves another key of the same owner alone; the
// provider-model calls of /openai/v1/chat/completions count for the key.
func TestBudgetPerKeyDaily(t *testing.T) {
	now := time.Date(2026, 3, 15, 18, 0, 0, 0, time.UTC)
	ts, _, clock := budgetServer(t, now)
	rec, k2, err := ts.Accounts.CreateKey(context.Background(), "admin", "second")
	if err != nil {
		t.Fatal(err)
	}
	allowed(t, "create", ts.Do("POST", "/v1/budgets", admin, map[string]any{"key_id": rec.ID, "period": "day", "limit_tokens": 150000}))
	chat := map[string]any{"model": "openai:gpt-4o-mini", "messages": []any{user("hi")}}
	allowed(t, "chat", ts.Do("POST", "/openai/v1/chat/completions", k2, chat))
	ts.RunLog.Flush()
	allowed(t, "100000 of 150000 tokens", runPipe(ts, k2))
	ts.RunLog.Flush()
	id, reset := "bgt_day_"+rec.ID, time.Date(2026, 3, 16, 0, 0, 0, 0, time.UTC)
	paths := []struct {
		what, path string
		body       map[string]any
	}{
		{"pipe run", "/v1/pipes/run", map[string]any{"name": "p", "messages": []any{user("hi")}}},
		{"openai chat", "/openai/v1/chat/completions", chat},
		{"agent run", "/v1/agent/run", map[string]any{"model": "openai:gpt-4o-mini", "input": "hi"}},
		{"images", "/v1/images", map[string]any{"model": "openai:gpt-image-1", "prompt": "a cat"}},
		{"openai images", "/openai/v1/images/generations", map[string]any{"model": "openai:gpt-image-1", "prompt": "a cat"}},
		{"embed", "/v1/embed", map[string]any{"chunks": []string{"x"}, "embeddingModel": "openai:text-embedding-3-small"}},
		{"openai embeddings", "/openai/v1/embeddings", map[string]any{"model": "openai:text-embedding-3-small", "input": "x"}},
	}
	for _, p := range paths {
		r := ts.Do("POST", p.path, k2, p.body)
		if r.Status != 429 || r.Header.Get("lb-budget-reset") != reset.Format(time.RFC3339) || !strings.Contains(string(r.Body), id) {
			t.Fatalf("%s with the spent key: %d %s", p.what, r.Status, r.Body)
		}
	}
	budgetRefused(t, "pipe run", runPipe(ts, k2), id, reset, now)
	allowed(t, "the owner's other key", runPipe(ts, admin))
	var list []engine.BudgetStatus
	ts.Do("GET", "/v1/budgets", admin, nil).JSON(t, &list)
	if len(list) != 1 || list[0].UsedTokens != 200000 || list[0].KeyID != rec.ID {
		t.Fatalf("the key's use counts its chat and its run, not the other key's run: %+v", list)
	}
	clock.Store(reset.Add(time.Minute).UnixNano())
	allowed(t, "the next day", runPipe(ts, k2))
}

// TestBudgetRoutes: who may set budgets, validation naming the field,
// replace and delete.
func TestBudgetRoutes(t *testing.T) {
	ts, _, _ := budgetServer(t, time.Now())
	scoped := scopedKey(t, ts, map[string]any{"pipes": []string{"p"}})
	pipeKey := func() string {
		var v struct {
			APIKey string `json:"api_key"`
		}
		ts.Do("POST", "/v1/pipes", admin, map[string]any{"name": "q"}).JSON(t, &v)
		return v.APIKey
	}()
	body := map[string]any{"period": "day", "limit_tokens": 10}
	refused(t, "scoped key", ts.Do("POST", "/v1/budgets", scoped, body), 403, `"field":"scope"`)
	refused(t, "pipe key", ts.Do("POST", "/v1/budgets", pipeKey, body), 403, `"field":"scope"`)
	refused(t, "pipe key", ts.Do("POST", "/v1/budgets", pipeKey, body), 403, "a pipe key can only run its pipe, so it cannot use POST /v1/budgets")
	refused(t, "pipe key", ts.Do("DELETE", "/v1/budgets/bgt_day_owner", pipeKey, nil), 403, `"field":"scope"`)
	for _, c := range []struct {
		body  map[string]any
		field string
	}{
		{map[string]any{"period": "year", "limit_usd": 1}, "period"},
		{map[string]any{"period": "day"}, "limit_usd"},
		{map[string]any{"period": "day", "limit_tokens": -3}, "limit_tokens"},
		{map[string]any{"period": "day", "limit_usd": 1, "key_id": "key_nosuchkey"}, "key_id"},
	} {
		refused(t, "invalid", ts.Do("POST", "/v1/budgets", admin, c.body), 400, c.field)
	}
	allowed(t, "create", ts.Do("POST", "/v1/budgets", admin, body))
	allowed(t, "replace", ts.Do("POST", "/v1/budgets", admin, map[string]any{"period": "day", "limit_usd": 2.5}))
	var list []engine.BudgetStatus
	ts.Do("GET", "/v1/budgets", admin, nil).JSON(t, &list)
	if len(list) != 1 || list[0].LimitTokens != nil || *list[0].LimitUSD != 2.5 {
		t.Fatalf("replaced budget %+v", list)
	}
	// An org key sets the org's budgets; the admin's are not the org's.
	org := ts.OrgWithKey("acme", "admin")
	allowed(t, "org budget", ts.Do("POST", "/v1/budgets", org, body))
	ts.Do("GET", "/v1/budgets", org, nil).JSON(t, &list)
	if len(list) != 1 || list[0].Owner != "acme" {
		t.Fatalf("org budgets %+v", list)
	}
	refused(t, "another owner's budget", ts.Do("DELETE", "/v1/budgets/bgt_day_owner", scoped, nil), 403, "scope")
	allowed(t, "delete", ts.Do("DELETE", "/v1/budgets/bgt_day_owner", admin, nil))
	refused(t, "deleted", ts.Do("DELETE", "/v1/budgets/bgt_day_owner", admin, nil), 404, "budget")
	ts.Do("GET", "/v1/budgets", org, nil).JSON(t, &list)
	if len(list) != 1 {
		t.Fatalf("deleting the admin's budget touched the org's: %+v", list)
	}
}

// TestBudgetCluster: two nodes on one PostgreSQL database share the
// counters: runs recorded on both at once are all counted, and spend
// recorded on B refuses the next run on A.
func TestBudgetCluster(t *testing.T) {
	up := fake.NewOpenAI()
	t.Cleanup(up.Close)
	up.SetDefault(fake.Reply{Usage: fake.Usage{PromptTokens: 100000}})
	nodes := servertest.StartCluster(t, 2, servertest.WithProvider("openai", up.BaseURL(), "sk-test"))
	a, b := nodes[0], nodes[1]
	mustStatus(t, a.Do("POST", "/v1/pipes", admin, map[string]any{"name": "p", "model": "openai:gpt-4o-mini"}), 200)
	const each = 4
	var wg sync.WaitGroup
	errs := make(chan string, 2*each)
	for _, n := range nodes {
		for range each {
			wg.Add(1)
			go func() {
				defer wg.Done()
				if r := runPipe(n, admin); r.Status != 200 {
					errs <- fmt.Sprintf("%d %s", r.Status, r.Body)
				}
			}()
		}
	}
	wg.Wait()
	close(errs)
	for e := range errs {
		t.Fatal(e)
	}
	a.RunLog.Flush()
	b.RunLog.Flush()
	// The budget is set on A, the node that must refuse: a node's own
	// budget write applies to its next request at once, while B's would
	// reach A's budget-list cache within the change feed's lag
	// (TestClusterCachesFollowFeed). The spend recorded on B is a shared
	// record and is never cached.
	r := a.Do("POST", "/v1/budgets", admin, map[string]any{"period": "day", "limit_tokens": 2*each*100000 + 100000})
	mustStatus(t, r, 200)
	var st engine.BudgetStatus
	r.JSON(t, &st)
	if st.UsedTokens != 2*each*100000 {
		t.Fatalf("runs on two nodes at once counted %d tokens, want %d", st.UsedTokens, 2*each*100000)
	}
	mustStatus(t, b.Do("POST", "/v1/pipes/run", admin, map[string]any{"name": "p", "messages": []any{user("hi")}}), 200)
	b.RunLog.Flush()
	if r := runPipe(a, admin); r.Status != 429 || r.Header.Get("lb-budget-reset") == "" {
		t.Fatalf("spend recorded on B, run on A: %d %s", r.Status, r.Body)
	}
}

// TestBudgetCountsAgentRunsAndImages: agent runs and image generations
// are in the run log, so they count for the key that made them.
func TestBudgetCountsAgentRunsAndImages(t *testing.T) {
	now := time.Date(2026, 3, 15, 18, 0, 0, 0, time.UTC)
	images := fake.NewOpenAIImages()
	t.Cleanup(images.Close)
	ts, _, _ := budgetServer(t, now, servertest.WithProvider("openai", images.BaseURL(), "sk-test"))
	rec, k2, err := ts.Accounts.CreateKey(context.Background(), "admin", "second")
	if err != nil {
		t.Fatal(err)
	}
	allowed(t, "create", ts.Do("POST", "/v1/budgets", admin, map[string]any{"key_id": rec.ID, "period": "day", "limit_usd": 100}))
	allowed(t, "agent run", ts.Do("POST", "/v1/agent/run", k2, map[string]any{"model": "hearth:echo", "input": "hi"}))
	allowed(t, "images", ts.Do("POST", "/v1/images", k2, map[string]any{"model": "openai:dall-e-3", "prompt": "a cat"}))
	allowed(t, "the owner's other key", ts.Do("POST", "/v1/images", admin, map[string]any{"model": "openai:dall-e-3", "prompt": "a dog"}))
	ts.RunLog.Flush()
	var list []engine.BudgetStatus
	ts.Do("GET", "/v1/budgets", admin, nil).JSON(t, &list)
	// The echo model's tokens (no list price) and one dall-e-3 image ($0.04).
	if len(list) != 1 || list[0].UsedTokens == 0 || list[0].UsedUSD < 0.0399999 || list[0].UsedUSD > 0.0400001 {
		t.Fatalf("the key's agent run and image are not counted (or the other key's image is): %+v", list)
	}
}

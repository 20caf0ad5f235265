package server

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/labstack/echo/v4"
)

// blockRoute adds GET /t/block behind authentication and admission, as a
// route of the table has them: each request reports its key's id on
// entered and holds its slot until release gives it a turn.
func blockRoute(s *Server, entered chan<- string, release <-chan struct{}) {
	s.echo.GET("/t/block", routeHandler(func(c echo.Context) error {
		entered <- principal(c).KeyID
		<-release
		return c.String(200, "done")
	}, s.authenticate(AuthUser), s.admit))
}

// answer is one finished request.
type answer struct {
	status int
	header http.Header
	body   string
}

// getAsync sends GET path with key in the background.
func getAsync(t *testing.T, url, key string) <-chan answer {
	t.Helper()
	out := make(chan answer, 1)
	go func() {
		req, _ := http.NewRequest("GET", url, nil)
		req.Header.Set("Authorization", "Bearer "+key)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			out <- answer{body: err.Error()}
			return
		}
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		out <- answer{resp.StatusCode, resp.Header, string(b)}
	}()
	return out
}

// mustUnavailable checks a 503 in the 5xx error shape with Retry-After
// whose message has want.
func mustUnavailable(t *testing.T, a answer, want string) {
	t.Helper()
	var body ErrorBody5xx
	if a.status != 503 || a.header.Get("Retry-After") != "1" || json.Unmarshal([]byte(a.body), &body) != nil ||
		body.Success || body.Code != "SERVICE_UNAVAILABLE" || !strings.Contains(body.Error, want) {
		t.Fatalf("want 503 naming %q: %d %v %s", want, a.status, a.header, a.body)
	}
}

// With every slot taken requests wait; a full queue refuses the newest
// waiter of the key with the most requests to make room for another key,
// and a freed slot goes to that other key. Health is served throughout,
// and every slot comes back.
func TestConcurrencyLimitSharesSlots(t *testing.T) {
	s, alice := hardened(t, func(c *Config) { c.MaxConcurrent, c.MaxQueued, c.QueueTimeout = 2, 1, time.Minute })
	waits := make(chan shareID, 8)
	s.share.waited = func(id shareID) { waits <- id }
	bobKey, bob, err := s.deps.Accounts.CreateKey(context.Background(), "alice", "")
	if err != nil {
		t.Fatal(err)
	}
	entered, release := make(chan string, 8), make(chan struct{})
	blockRoute(s, entered, release)
	url := s.URL() + "/t/block"
	held := []<-chan answer{getAsync(t, url, alice), getAsync(t, url, alice)}
	<-entered
	<-entered
	third := getAsync(t, url, alice)
	<-waits
	// bob's key is another key: alice (2 held, 1 waiting) gives up her
	// waiter's place.
	bobs := getAsync(t, url, bob)
	<-waits
	mustUnavailable(t, <-third, "requests waiting")
	// alice's next finds the queue full and no key two ahead of hers.
	mustUnavailable(t, <-getAsync(t, url, alice), "requests waiting")
	if resp, err := http.Get(s.URL() + "/health"); err != nil || resp.StatusCode != 200 {
		t.Fatalf("health while full: %v %v", resp, err)
	}
	release <- struct{}{} // one of alice's ends: bob is next
	if who := <-entered; who != bobKey.ID {
		t.Fatalf("the freed slot went to key %s, not to the other key %s", who, bobKey.ID)
	}
	close(release)
	for _, a := range append(held, bobs) {
		if a := <-a; a.status != 200 {
			t.Fatalf("a held request: %d %s", a.status, a.body)
		}
	}
	noLeak(t, s.share)
}

// A request that waits the whole QueueTimeout gets 503 naming the wait.
func TestQueueTimeoutAnswers503(t *testing.T) {
	s, alice := hardened(t, func(c *Config) { c.MaxConcurrent, c.QueueTimeout = 1, 20*time.Millisecond })
	entered, release := make(chan string, 2), make(chan struct{})
	blockRoute(s, entered, release)
	first := getAsync(t, s.URL()+"/t/block", alice)
	<-entered
	mustUnavailable(t, <-getAsync(t, s.URL()+"/t/block", alice), "waited 20ms for a slot")
	close(release)
	if a := <-first; a.status != 200 {
		t.Fatalf("the held request: %d", a.status)
	}
	noLeak(t, s.share)
}

// By default no fixed cap applies: one key may take all 512 slots, and a
// request finding none waits (MaxQueued, QueueTimeout) instead of 503.
func TestAdmissionDefaults(t *testing.T) {
	s, _ := hardened(t, nil)
	sh := s.share
	if sh.capKey != 0 || sh.capIP != 0 || sh.max != DefaultMaxConcurrent || sh.queue != DefaultMaxQueued || sh.wait != DefaultQueueTimeout {
		t.Fatalf("defaults: caps %d/%d, %d slots, queue %d, wait %v", sh.capKey, sh.capIP, sh.max, sh.queue, sh.wait)
	}
	var held []*shareClient
	for range DefaultMaxConcurrent {
		held = append(held, take(t, sh, keyA))
	}
	for _, c := range held {
		sh.release(c)
	}
	noLeak(t, sh)
	s2, _ := hardened(t, func(c *Config) { c.MaxConcurrent, c.MaxQueued = -1, -1 })
	if s2.share != nil {
		t.Fatal("an admission with no limit and no caps")
	}
}

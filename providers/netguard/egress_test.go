package netguard

import (
	"bytes"
	"errors"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"
	"time"
)

func TestParseAllow(t *testing.T) {
	got, err := ParseAllow(" api.example.com, 127.0.0.1:11434 ,10.0.0.0/8,[::1]:8080,,")
	if err != nil || len(got) != 4 {
		t.Fatalf("%v %v", got, err)
	}
	for _, bad := range []string{"http://x", "h:0", "h:99999", "a b", "user@host"} {
		if _, err := ParseAllow(bad); err == nil {
			t.Errorf("%q accepted", bad)
		}
	}
	if _, err := NewEgress("closed", nil, nil); err == nil || !strings.Contains(err.Error(), "HEARTH_OUTBOUND \"closed\"") {
		t.Errorf("bad mode: %v", err)
	}
}

// TestEgressRules: names match by name (and port when given), literal
// addresses and names resolved to them by CIDR; anything else is refused
// naming the host, the port and the setting, logged and recorded.
func TestEgressRules(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { w.Write([]byte("ok")) }))
	defer srv.Close()
	u, _ := url.Parse(srv.URL)
	_, port, _ := net.SplitHostPort(u.Host)
	cases := []struct {
		allow  []string
		target string
		ok     bool
	}{
		{[]string{"127.0.0.1:" + port}, "127.0.0.1:" + port, true},
		{[]string{"127.0.0.1:1"}, "127.0.0.1:" + port, false},
		{[]string{"localhost"}, "localhost:" + port, true},
		{[]string{"LocalHost."}, "localhost:" + port, true},
		{[]string{"localhost"}, "127.0.0.1:" + port, false},
		{[]string{"127.0.0.0/8"}, "localhost:" + port, true}, // a name judged by the address it resolves to
		{[]string{"127.0.0.0/8"}, "127.0.0.1:" + port, true},
		{[]string{"10.0.0.0/8"}, "localhost:" + port, false},
		{nil, "127.0.0.1:" + port, false},
	}
	for _, tc := range cases {
		var logs bytes.Buffer
		e, err := NewEgress(ModeAllowlist, tc.allow, slog.New(slog.NewTextHandler(&logs, nil)))
		if err != nil {
			t.Fatal(err)
		}
		c := &http.Client{Transport: e.Transport("test"), Timeout: 5 * time.Second}
		resp, err := c.Get("http://" + tc.target + "/")
		if resp != nil {
			resp.Body.Close()
		}
		if (err == nil) != tc.ok {
			t.Errorf("allow %v, %s: %v", tc.allow, tc.target, err)
			continue
		}
		rec := e.Record()
		if len(rec) != 1 || rec[0].Feature != "test" || rec[0].Count != 1 {
			t.Errorf("allow %v, %s: record %+v", tc.allow, tc.target, rec)
			continue
		}
		if tc.ok {
			if rec[0].Outcome != "connected" {
				t.Errorf("allow %v, %s: record %+v", tc.allow, tc.target, rec)
			}
			continue
		}
		r, isRefusal := AsRefusal(err)
		if !isRefusal || !errors.Is(err, ErrRefused) || !strings.Contains(err.Error(), tc.target) || !strings.Contains(err.Error(), "HEARTH_OUTBOUND_HOSTS") {
			t.Errorf("allow %v, %s: refusal %v", tc.allow, tc.target, err)
		}
		if r != nil && net.JoinHostPort(r.Host, r.Port) != tc.target {
			t.Errorf("refusal names %s:%s", r.Host, r.Port)
		}
		if rec[0].Outcome != "refused" || !strings.Contains(logs.String(), "egress refused") {
			t.Errorf("allow %v, %s: record %+v, log %q", tc.allow, tc.target, rec, logs.String())
		}
	}
}

// TestEgressWithAddressPolicy: a user-supplied URL passes both the egress
// list and the address policy, and an egress refusal keeps its wording
// through the policy's error rewording.
func TestEgressWithAddressPolicy(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {}))
	defer srv.Close()
	u, _ := url.Parse(srv.URL)
	e, _ := NewEgress(ModeAllowlist, []string{u.Host}, slog.New(slog.DiscardHandler))
	if _, err := (Policy{Egress: e}).Client(5*time.Second, 0).Get(srv.URL); !errors.Is(err, ErrRefused) || !strings.Contains(err.Error(), "not a public address") {
		t.Fatalf("allowed by egress, refused by the address policy: %v", err)
	}
	resp, err := (Policy{AllowLoopback: true, Egress: e}).Client(5*time.Second, 0).Get(srv.URL)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	other, _ := NewEgress(ModeAllowlist, []string{"example.com"}, slog.New(slog.DiscardHandler))
	_, err = (Policy{AllowLoopback: true, Egress: other, Feature: "mcp"}).Client(5*time.Second, 0).Get(srv.URL)
	if _, ok := AsRefusal(err); !ok || !strings.Contains(err.Error(), u.Host) {
		t.Fatalf("egress refusal lost: %v", err)
	}
	if rec := other.Record(); len(rec) != 1 || rec[0].Feature != "mcp" || rec[0].Outcome != "refused" {
		t.Fatalf("record %+v", rec)
	}
}

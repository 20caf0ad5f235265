package netguard

import (
	"errors"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"testing"
	"time"
)

func TestCheckAddr(t *testing.T) {
	cases := []struct {
		ip     string
		policy Policy
		ok     bool
	}{
		{"8.8.8.8", Policy{}, true},
		{"2606:4700::1111", Policy{}, true},
		{"127.0.0.1", Policy{}, false},
		{"::1", Policy{}, false},
		{"10.1.2.3", Policy{}, false},
		{"192.168.1.1", Policy{}, false},
		{"172.16.0.5", Policy{}, false},
		{"169.254.169.254", Policy{}, false},
		{"fd00::1", Policy{}, false},
		{"100.64.1.1", Policy{}, false},
		{"0.0.0.0", Policy{}, false},
		{"::ffff:127.0.0.1", Policy{}, false},
		{"127.0.0.1", Policy{AllowLoopback: true}, true},
		{"10.1.2.3", Policy{AllowLoopback: true}, false},
		{"10.1.2.3", Policy{AllowPrivate: true}, true},
		{"127.0.0.1", Policy{AllowPrivate: true}, true},
		{"10.9.0.1", Policy{Allow: []netip.Prefix{netip.MustParsePrefix("10.9.0.0/16")}}, true},
		{"10.8.0.1", Policy{Allow: []netip.Prefix{netip.MustParsePrefix("10.9.0.0/16")}}, false},
	}
	for _, tc := range cases {
		err := tc.policy.CheckAddr(netip.MustParseAddr(tc.ip))
		if (err == nil) != tc.ok {
			t.Errorf("%s with %+v: err = %v", tc.ip, tc.policy, err)
		}
		if err != nil && !errors.Is(err, ErrRefused) {
			t.Errorf("%s: error does not wrap ErrRefused", tc.ip)
		}
	}
}

func TestClientRefusesLoopbackAtDialTime(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { w.Write([]byte("hi")) }))
	defer srv.Close()
	_, err := Policy{}.Client(5*time.Second, 3).Get(srv.URL)
	if err == nil || !errors.Is(err, ErrRefused) {
		t.Fatalf("loopback fetch: %v", err)
	}
	resp, err := Policy{AllowLoopback: true}.Client(5*time.Second, 3).Get(srv.URL)
	if err != nil {
		t.Fatalf("allowed loopback: %v", err)
	}
	resp.Body.Close()
}

func TestRedirectLimit(t *testing.T) {
	var srv *httptest.Server
	srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, srv.URL+r.URL.Path+"x", http.StatusFound)
	}))
	defer srv.Close()
	_, err := Policy{AllowLoopback: true}.Client(5*time.Second, 3).Get(srv.URL + "/a")
	if err == nil {
		t.Fatal("endless redirects followed")
	}
}

func TestCheckURL(t *testing.T) {
	for raw, ok := range map[string]bool{"https://a.example/x": true, "ftp://a": false, "/rel": false, "http://u:p@h": false, "http://": false} {
		if _, err := CheckURL("url", raw); (err == nil) != ok {
			t.Errorf("%s: %v", raw, err)
		}
	}
}

package netguard

import (
	"errors"
	"net"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"net/url"
	"strings"
	"testing"
	"time"
)

// TestCheckAddrEmbeddedIPv4: IPv6 forms that lead to an IPv4 address are
// judged by that address.
func TestCheckAddrEmbeddedIPv4(t *testing.T) {
	cases := []struct {
		ip     string
		policy Policy
		ok     bool
	}{
		{"64:ff9b::10.0.0.1", Policy{}, false},         // NAT64 to RFC 1918
		{"64:ff9b::127.0.0.1", Policy{}, false},        // NAT64 to loopback
		{"64:ff9b::169.254.169.254", Policy{}, false},  // NAT64 to cloud metadata
		{"64:ff9b::8.8.8.8", Policy{}, true},           // NAT64 to a public address
		{"64:ff9b:1:a00:1::", Policy{}, false},         // local-use NAT64 /48 layout of 10.0.0.1
		{"64:ff9b:1::10.0.0.1", Policy{}, false},       // local-use NAT64 /96 layout
		{"::10.0.0.1", Policy{}, false},                // IPv4-compatible
		{"::127.0.0.1", Policy{}, false},               // IPv4-compatible loopback
		{"::8.8.8.8", Policy{}, true},                  // IPv4-compatible public
		{"::ffff:0:192.168.1.1", Policy{}, false},      // SIIT IPv4-translated
		{"2002:a00:1::1", Policy{}, false},             // 6to4 of 10.0.0.1
		{"2002:c0a8:101::1", Policy{}, false},          // 6to4 of 192.168.1.1
		{"2002:808:808::1", Policy{}, true},            // 6to4 of 8.8.8.8
		{"2001:0:808:808::f5ff:fffe", Policy{}, false}, // Teredo, client 10.0.0.1
		{"2001:0:a00:1::f7f7:f7f7", Policy{}, false},   // Teredo, server 10.0.0.1
		{"2001:0:808:808::f7f7:f7f7", Policy{}, true},  // Teredo, both 8.8.8.8
		{"fec0::1", Policy{}, false},                   // site-local
		{"fec0::1", Policy{AllowPrivate: true}, true},  // site-local is private
		{"64:ff9b::10.0.0.1", Policy{AllowPrivate: true}, true},
		{"2002:a00:1::1", Policy{Allow: []netip.Prefix{netip.MustParsePrefix("10.0.0.0/24")}}, true},
		{"::", Policy{}, false},
		{"::1", Policy{}, false},
	}
	for _, tc := range cases {
		err := tc.policy.CheckAddr(netip.MustParseAddr(tc.ip))
		if (err == nil) != tc.ok {
			t.Errorf("%s with %+v: err = %v", tc.ip, tc.policy, err)
		}
		if err != nil && (!errors.Is(err, ErrRefused) || strings.Contains(err.Error(), tc.ip)) {
			t.Errorf("%s: refusal %q does not wrap ErrRefused or names the address", tc.ip, err)
		}
	}
}

// TestRefusalNamesNoResolvedAddress: a host name that resolves to a
// refused address is refused as "not a public address", naming the host
// the caller gave and never the address it resolved to.
func TestRefusalNamesNoResolvedAddress(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(http.ResponseWriter, *http.Request) {}))
	defer srv.Close()
	u, _ := url.Parse(srv.URL)
	_, port, _ := net.SplitHostPort(u.Host)
	_, err := Policy{}.Client(5*time.Second, 0).Get("http://localhost:" + port + "/")
	if err == nil || !errors.Is(err, ErrRefused) {
		t.Fatalf("localhost fetch: %v", err)
	}
	msg := err.Error()
	if !strings.Contains(msg, "not a public address") || !strings.Contains(msg, "localhost") {
		t.Errorf("refusal %q does not say why or for which host", msg)
	}
	if strings.Contains(msg, "127.0.0.1") || strings.Contains(msg, "::1") {
		t.Errorf("refusal %q reveals the resolved address", msg)
	}
}

// TestDialErrorHidesResolver: a failed lookup keeps its kind but not the
// address of the server's DNS resolver.
func TestDialErrorHidesResolver(t *testing.T) {
	in := &net.OpError{Op: "dial", Net: "tcp", Err: &net.DNSError{Err: "no such host", Name: "intra.example", Server: "10.0.0.53:53", IsNotFound: true}}
	err := dialError("tcp", "intra.example:443", in)
	var dns *net.DNSError
	if !errors.As(err, &dns) || !dns.IsNotFound {
		t.Fatalf("lookup error kind lost: %v", err)
	}
	if msg := err.Error(); strings.Contains(msg, "10.0.0.53") || !strings.Contains(msg, "intra.example") {
		t.Errorf("lookup error %q reveals the resolver or drops the host", msg)
	}
	in = &net.OpError{Op: "dial", Net: "tcp", Addr: &net.TCPAddr{IP: net.ParseIP("10.1.2.3"), Port: 443}, Err: errNotPublic}
	if msg := dialError("tcp", "intra.example:443", in).Error(); strings.Contains(msg, "10.1.2.3") {
		t.Errorf("refusal %q reveals the resolved address", msg)
	}
}

package netguard

import "net/netip"

// IPv6 ranges whose addresses carry an IPv4 address that the packets
// finally reach, so the IPv4 policy must judge them.
var (
	nat64      = netip.MustParsePrefix("64:ff9b::/96")    // RFC 6052 well-known NAT64 prefix
	nat64Local = netip.MustParsePrefix("64:ff9b:1::/48")  // RFC 8215 local-use NAT64
	compat     = netip.MustParsePrefix("::/96")           // RFC 4291 IPv4-compatible (deprecated)
	siit       = netip.MustParsePrefix("::ffff:0:0:0/96") // RFC 2765 IPv4-translated
	sixToFour  = netip.MustParsePrefix("2002::/16")       // RFC 3056 6to4
	teredo     = netip.MustParsePrefix("2001::/32")       // RFC 4380 Teredo
)

// embeddedIPv4 returns the IPv4 addresses an IPv6 address leads to, and
// whether it is of a kind that embeds one. The unspecified address and
// ::1, inside the IPv4-compatible range, are left to the IPv6 rules.
//
// NAT64 (64:ff9b::/96) and IPv4-compatible/translated addresses carry the
// IPv4 address in their last 32 bits; local-use NAT64 (64:ff9b:1::/48)
// may use any RFC 6052 layout, so every candidate position is returned;
// 6to4 carries it in bits 16-47; Teredo carries the server in bits 32-63
// and the client, inverted, in the last 32 bits.
func embeddedIPv4(ip netip.Addr) ([]netip.Addr, bool) {
	if !ip.Is6() || ip.Is4In6() {
		return nil, false
	}
	b := ip.As16()
	v4 := func(i int) netip.Addr { return netip.AddrFrom4([4]byte{b[i], b[i+1], b[i+2], b[i+3]}) }
	switch {
	case nat64.Contains(ip), siit.Contains(ip):
		return []netip.Addr{v4(12)}, true
	case compat.Contains(ip):
		if ip.IsUnspecified() || ip.IsLoopback() {
			return nil, false
		}
		return []netip.Addr{v4(12)}, true
	case nat64Local.Contains(ip):
		// RFC 6052 section 2.2: prefix lengths 48, 56 and 64 split the
		// IPv4 address around the reserved octet 8; 96 puts it last.
		p48 := netip.AddrFrom4([4]byte{b[6], b[7], b[9], b[10]})
		p56 := netip.AddrFrom4([4]byte{b[7], b[9], b[10], b[11]})
		p64 := netip.AddrFrom4([4]byte{b[9], b[10], b[11], b[12]})
		return []netip.Addr{p48, p56, p64, v4(12)}, true
	case sixToFour.Contains(ip):
		return []netip.Addr{v4(2)}, true
	case teredo.Contains(ip):
		client := netip.AddrFrom4([4]byte{^b[12], ^b[13], ^b[14], ^b[15]})
		return []netip.Addr{v4(4), client}, true
	}
	return nil, false
}

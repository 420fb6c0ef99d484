package safehttp

import (
	"errors"
	"net/netip"
	"strings"
	"testing"
)

func TestPolicyCheck(t *testing.T) {
	tests := []struct {
		name   string
		policy Policy
		host   string
		ip     string
		want   string // "" = allowed, else the BlockedError reason
	}{
		{"public", Policy{}, "example.com", "93.184.216.34", ""},
		{"public v6", Policy{}, "example.com", "2606:2800:220:1::1", ""},
		{"loopback refused", Policy{}, "localhost", "127.0.0.1", reasonLoopback},
		{"loopback v6 refused", Policy{}, "localhost", "::1", reasonLoopback},
		{"rfc1918 refused", Policy{}, "h", "10.1.2.3", reasonPrivate},
		{"rfc1918 172.16", Policy{}, "h", "172.31.255.1", reasonPrivate},
		{"rfc1918 192.168", Policy{}, "h", "192.168.0.1", reasonPrivate},
		{"ula refused", Policy{}, "h", "fd12::1", reasonPrivate},
		{"cgnat refused", Policy{}, "h", "100.64.0.1", reasonShared},
		{"reserved refused", Policy{}, "h", "240.0.0.1", reasonReserved},
		{"loopback allowed by AllowPrivate", Policy{AllowPrivate: true}, "localhost", "127.0.0.1", ""},
		{"cgnat allowed by AllowPrivate", Policy{AllowPrivate: true}, "h", "100.64.0.1", ""},
		{"private allowed by CIDR", Policy{AllowHosts: []string{"10.1.0.0/16"}}, "h", "10.1.2.3", ""},
		{"private outside CIDR", Policy{AllowHosts: []string{"10.1.0.0/16"}}, "h", "10.2.0.1", reasonPrivate},
		{"private allowed by single IP", Policy{AllowHosts: []string{"192.168.1.5"}}, "192.168.1.5", "192.168.1.5", ""},
		{"private allowed by host name", Policy{AllowHosts: []string{"API.Internal."}}, "api.internal", "10.9.9.9", ""},
		{"private allowed by wildcard", Policy{AllowHosts: []string{"*.corp.example"}}, "db.corp.example", "10.9.9.9", ""},
		{"wildcard does not match apex", Policy{AllowHosts: []string{"*.corp.example"}}, "corp.example", "10.9.9.9", reasonPrivate},
		{"other host name not allowed", Policy{AllowHosts: []string{"api.internal"}}, "evil.example", "10.9.9.9", reasonPrivate},
		{"metadata v4 always", Policy{AllowPrivate: true, AllowHosts: []string{"169.254.0.0/16", "meta"}}, "meta", "169.254.169.254", reasonMetadata},
		{"metadata v6 always", Policy{AllowPrivate: true, AllowHosts: []string{"fd00::/8"}}, "h", "fd00:ec2::254", reasonMetadata},
		{"alibaba metadata always", Policy{AllowPrivate: true}, "h", "100.100.100.200", reasonMetadata},
		{"link-local v6 always", Policy{AllowPrivate: true}, "h", "fe80::1", reasonMetadata},
		{"unspecified v4", Policy{AllowPrivate: true}, "h", "0.0.0.0", reasonUnspecified},
		{"this network", Policy{AllowPrivate: true}, "h", "0.1.2.3", reasonUnspecified},
		{"unspecified v6", Policy{AllowPrivate: true}, "h", "::", reasonUnspecified},
		{"multicast", Policy{AllowPrivate: true}, "h", "224.0.0.1", reasonMulticast},
		{"multicast v6", Policy{AllowPrivate: true}, "h", "ff02::1", reasonMulticast},
		{"broadcast", Policy{AllowPrivate: true}, "h", "255.255.255.255", reasonMulticast},
		{"mapped metadata", Policy{AllowPrivate: true}, "h", "::ffff:169.254.169.254", reasonMetadata},
		{"mapped loopback refused", Policy{}, "h", "::ffff:127.0.0.1", reasonLoopback},
		{"mapped loopback allowed by v4 CIDR", Policy{AllowHosts: []string{"127.0.0.0/8"}}, "h", "::ffff:127.0.0.1", ""},
		{"nat64 metadata", Policy{AllowPrivate: true}, "h", "64:ff9b::a9fe:a9fe", reasonMetadata},
		{"nat64 private", Policy{}, "h", "64:ff9b::a00:1", reasonPrivate},

		// IPv6 spellings that carry an IPv4 address are judged as that address.
		{"compatible loopback", Policy{}, "h", "::7f00:1", reasonLoopback},
		{"compatible loopback dotted", Policy{}, "h", "::127.0.0.1", reasonLoopback},
		{"compatible loopback allowed by AllowPrivate", Policy{AllowPrivate: true}, "h", "::7f00:1", ""},
		{"compatible loopback allowed by v4 CIDR", Policy{AllowHosts: []string{"127.0.0.0/8"}}, "h", "::7f00:1", ""},
		{"compatible metadata", Policy{AllowPrivate: true}, "h", "::a9fe:a9fe", reasonMetadata},
		{"compatible private", Policy{}, "h", "::10.0.0.1", reasonPrivate},
		{"compatible public", Policy{}, "h", "::8.8.8.8", ""},
		{"v6 loopback is not compatible 0.0.0.1", Policy{AllowPrivate: true}, "h", "::1", ""},
		{"siit loopback", Policy{}, "h", "::ffff:0:7f00:1", reasonLoopback},
		{"siit metadata", Policy{AllowPrivate: true}, "h", "::ffff:0:169.254.169.254", reasonMetadata},
		{"siit public", Policy{}, "h", "::ffff:0:8.8.8.8", ""},
		{"local nat64 /96 loopback", Policy{}, "h", "64:ff9b:1::7f00:1", reasonLoopback},
		{"local nat64 /96 metadata", Policy{AllowPrivate: true}, "h", "64:ff9b:1::a9fe:a9fe", reasonMetadata},
		{"local nat64 /48 metadata", Policy{AllowPrivate: true}, "h", "64:ff9b:1:a9fe:a9:fe00:808:808", reasonMetadata},
		{"local nat64 /56 private", Policy{}, "h", "64:ff9b:1:0a:0:0001:0200::", reasonPrivate},
		{"local nat64 /64 loopback", Policy{}, "h", "64:ff9b:1:0:7f:0:108:808", reasonLoopback},
		{"local nat64 /64 metadata", Policy{AllowPrivate: true}, "h", "64:ff9b:1:0:a9:fea9:fe08:808", reasonMetadata},
		{"local nat64 public", Policy{}, "h", "64:ff9b:1::808:808", ""},
		{"6to4 loopback", Policy{}, "h", "2002:7f00:1::1", reasonLoopback},
		{"6to4 metadata", Policy{AllowPrivate: true}, "h", "2002:a9fe:a9fe::", reasonMetadata},
		{"6to4 private", Policy{}, "h", "2002:c0a8:0101:1::5", reasonPrivate},
		{"6to4 private allowed by v4 CIDR", Policy{AllowHosts: []string{"192.168.0.0/16"}}, "h", "2002:c0a8:0101:1::5", ""},
		{"6to4 public", Policy{}, "h", "2002:808:808::1", ""},
		{"teredo loopback client", Policy{}, "h", "2001:0:4136:e378:8000:63bf:80ff:fffe", reasonLoopback},
		{"teredo metadata client", Policy{AllowPrivate: true}, "h", "2001:0:4136:e378:8000:63bf:5601:5601", reasonMetadata},
		{"teredo private client", Policy{}, "h", "2001:0:4136:e378:8000:63bf:f5ff:fffe", reasonPrivate},
		{"teredo public client", Policy{}, "h", "2001:0:4136:e378:8000:63bf:f7f7:f7f7", ""},
		{"local nat64 allowed by its v6 prefix", Policy{AllowHosts: []string{"64:ff9b:1::/48"}}, "h", "64:ff9b:1:0:7f:0:108:808", ""},
		{"local nat64 metadata not allowed by its v6 prefix", Policy{AllowPrivate: true, AllowHosts: []string{"64:ff9b:1::/48"}}, "h", "64:ff9b:1:0:a9:fea9:fe08:808", reasonMetadata},
		{"compatible entry in AllowHosts", Policy{AllowHosts: []string{"::7f00:1"}}, "h", "127.0.0.1", ""},
		{"zoned compatible loopback", Policy{}, "h", "::7f00:1%eth0", reasonLoopback},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := tt.policy.Check(tt.host, netip.MustParseAddr(tt.ip))
			if tt.want == "" {
				if err != nil {
					t.Fatalf("refused: %v", err)
				}
				return
			}
			var be *BlockedError
			if !errors.As(err, &be) {
				t.Fatalf("got %v, want a *BlockedError (%s)", err, tt.want)
			}
			if be.Reason != tt.want || be.IP != netip.MustParseAddr(tt.ip) || be.Host != tt.host {
				t.Errorf("got %+v, want reason %q for %s", be, tt.want, tt.ip)
			}
		})
	}
}

func TestBlockedErrorMessage(t *testing.T) {
	tests := []struct {
		err  BlockedError
		want string
	}{
		{BlockedError{Host: "169.254.169.254", IP: netip.MustParseAddr("169.254.169.254"), Reason: reasonMetadata},
			"refused to connect to 169.254.169.254: link-local/metadata address"},
		{BlockedError{Host: "localhost", IP: netip.MustParseAddr("127.0.0.1"), Reason: reasonLoopback},
			"refused to connect to localhost (127.0.0.1): loopback address; allow it with allow_private or by listing the host in allow_hosts"},
		{BlockedError{Host: "x:1", Reason: `redirect to unsupported scheme "file"`},
			`refused to connect to x:1: redirect to unsupported scheme "file"`},
	}
	for _, tt := range tests {
		if got := tt.err.Error(); got != tt.want {
			t.Errorf("Error() = %q, want %q", got, tt.want)
		}
	}
	if !strings.HasPrefix(tests[0].want, "refused to connect to 169.254.169.254") {
		t.Fatal("message format changed")
	}
}

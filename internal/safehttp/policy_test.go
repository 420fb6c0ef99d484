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

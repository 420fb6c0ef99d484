package httpapi

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"io"
	"net"
	"net/url"
	"strings"
	"syscall"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpbridge/mcpbridge/internal/backend"
	"github.com/mcpbridge/mcpbridge/internal/safehttp"
)

// transportFailure explains an error from sending a request or reading its response: what
// failed and what to do. The URL (which may hold query values) is never repeated.
func (b *Backend) transportFailure(ctx context.Context, t *tool, display string, ph phase, err error) *mcp.CallToolResult {
	host := t.base.Host
	phase, where := ph.words(host)
	var ue *url.Error
	if errors.As(err, &ue) {
		err = ue.Err
	}
	var blocked *safehttp.BlockedError
	var dnsErr *net.DNSError
	var certErr *tls.CertificateVerificationError
	var unknownAuth x509.UnknownAuthorityError
	var hostErr x509.HostnameError
	var msg string
	switch {
	case errors.As(err, &blocked):
		msg = blockedMessage(display, b.name, blocked, !strings.EqualFold(blocked.Host, t.base.Hostname()))
	case ctx.Err() == context.DeadlineExceeded && (errors.Is(err, context.DeadlineExceeded) || isTimeout(err)):
		msg = fmt.Sprintf("%s timed out after %s while %s. The API is slow or unreachable; retry later, or raise timeout on the tool or server.", display, t.timeout, where)
	case errors.Is(err, context.Canceled) || ctx.Err() == context.Canceled:
		msg = fmt.Sprintf("%s was cancelled while %s.", display, phase)
	case isTimeout(err):
		msg = fmt.Sprintf("%s timed out while %s. The API is slow or unreachable; retry later.", display, where)
	case errors.Is(err, syscall.ECONNREFUSED):
		msg = fmt.Sprintf("%s failed: %s refused the connection. Is the API running, and is base_url of server %s right?", display, host, b.name)
	case errors.As(err, &dnsErr):
		msg = fmt.Sprintf("%s failed: the host name %s cannot be resolved (%s). Check base_url of server %s.", display, dnsErr.Name, dnsErr.Err, b.name)
	case errors.As(err, &certErr), errors.As(err, &unknownAuth), errors.As(err, &hostErr):
		msg = fmt.Sprintf("%s failed: the TLS certificate of %s is not trusted (%v). Check base_url, or install the CA certificate on the gateway host.", display, host, err)
	case errors.Is(err, syscall.ECONNRESET) || errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, io.EOF):
		msg = fmt.Sprintf("%s failed: %s closed the connection while %s. Retry; if it persists, check the API.", display, host, phase)
	default:
		msg = fmt.Sprintf("%s failed while %s: %v", display, where, err)
	}
	return backend.ErrorResult("%s", b.scrub.String(msg))
}

// phase is where in a call a transport failure happened.
type phase int

const (
	phaseSending phase = iota // connecting, or writing the request
	phaseWaiting              // the request was sent; no response headers yet
	phaseReading              // reading the response body
)

// words returns the phase alone ("sending the request") and with the host ("sending the
// request to api.example").
func (p phase) words(host string) (alone, where string) {
	switch p {
	case phaseWaiting:
		return "waiting for the answer", "waiting for the answer from " + host
	case phaseReading:
		return "reading the response", "reading the response from " + host
	}
	return "sending the request", "sending the request to " + host
}

// blockedMessage explains an SSRF refusal: the address, why, and whether configuration can
// allow it.
func blockedMessage(display, server string, be *safehttp.BlockedError, redirected bool) string {
	what := be.Host
	if be.IP.IsValid() {
		what = be.IP.String()
		if be.Host != "" && be.Host != what {
			what = fmt.Sprintf("%s (%s)", be.Host, be.IP)
		}
	}
	lead := display + " was not sent: the destination"
	if redirected {
		lead = display + " was redirected, and the redirect was not followed: its destination"
	}
	switch {
	case !be.IP.IsValid():
		return fmt.Sprintf("%s %s was refused (%s). Only http and https destinations are followed.", lead, what, be.Reason)
	case (safehttp.Policy{AllowPrivate: true}).Check(be.Host, be.IP) != nil:
		return fmt.Sprintf("%s %s (%s) can never be reached; no allow_private or allow_hosts setting allows link-local, cloud metadata, unspecified, multicast or broadcast addresses.", lead, what, be.Reason)
	}
	return fmt.Sprintf("%s %s (%s) is not allowed. To allow it, set allow_private: true on server %s, or list the host in its allow_hosts.", lead, what, be.Reason, server)
}

func isTimeout(err error) bool {
	var ne net.Error
	return errors.As(err, &ne) && ne.Timeout()
}

package command_test

import (
	"bytes"
	"context"
	"encoding/base64"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpbridge/mcpbridge/internal/gateway"
	"github.com/mcpbridge/mcpbridge/internal/gateway/gatewaytest"
)

// png1x1 is a 1x1 PNG.
const png1x1 = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAIAAACQd1PeAAAADElEQVR4nGP4z8AAAAMBAQDJ/pLvAAAAAElFTkSuQmCC"

// wavHeader is the start of a WAVE file (RIFF, size, WAVE, fmt chunk).
var wavHeader = []byte("RIFF\x24\x00\x00\x00WAVEfmt \x10\x00\x00\x00\x01\x00\x01\x00\x44\xac\x00\x00\x88\x58\x01\x00\x02\x00\x10\x00data\x00\x00\x00\x00")

const protocolYAML = `servers:
  s:
    kind: command
    description: native protocol features
    tools:
      png:
        description: prints a PNG
        inputSchema: {type: object}
        argv: [cat, pic.png]
      wav:
        description: prints a WAVE file
        inputSchema: {type: object}
        argv: [cat, sound.wav]
      svg:
        description: prints an SVG, declared
        inputSchema: {type: object}
        argv: [printf, "<svg xmlns='http://www.w3.org/2000/svg'/>"]
        output: image/svg+xml
      not_audio:
        description: declares audio, prints text
        inputSchema: {type: object}
        argv: [echo, hello]
        output: audio
      png_as_binary:
        description: a PNG declared binary
        inputSchema: {type: object}
        argv: [cat, pic.png]
        output: binary
      plain:
        description: prints text
        inputSchema: {type: object}
        argv: [echo, just text]
      chatty:
        description: writes stderr lines, one with a secret
        inputSchema: {type: object}
        argv: [sh, -c, "echo starting >&2; echo \"token $TOKEN\" >&2; printf 'no newline' >&2; echo done"]
        env: {TOKEN: "env:PROTOCOL_TEST_TOKEN"}
      warns:
        description: stderr lines at warning level
        inputSchema: {type: object}
        argv: [sh, -c, "echo careful >&2; echo done"]
        log_stderr: warning
      quiet:
        description: stderr not logged
        inputSchema: {type: object}
        argv: [sh, -c, "echo hidden >&2; echo done"]
        log_stderr: "off"
      slow:
        description: takes over a second
        inputSchema: {type: object}
        argv: [sleep, "1.3"]
        timeout: 10s
`

func startProtocolServer(t *testing.T) string {
	t.Helper()
	t.Setenv("PROTOCOL_TEST_TOKEN", "s3cr3t-t0ken-value")
	dir := t.TempDir()
	pic, _ := base64.StdEncoding.DecodeString(png1x1)
	if err := os.WriteFile(filepath.Join(dir, "pic.png"), pic, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "sound.wav"), wavHeader, 0o644); err != nil {
		t.Fatal(err)
	}
	srv := gatewaytest.StartIn(t, dir, protocolYAML, gateway.Options{})
	return srv.URL + "/mcp/s"
}

type logClient struct {
	logs     chan *mcp.LoggingMessageParams
	progress chan *mcp.ProgressNotificationParams
}

func connectProtocol(t *testing.T, url, era string) (*logClient, *mcp.ClientSession) {
	t.Helper()
	lc := &logClient{logs: make(chan *mcp.LoggingMessageParams, 100), progress: make(chan *mcp.ProgressNotificationParams, 100)}
	c := mcp.NewClient(&mcp.Implementation{Name: "t", Version: "1"}, &mcp.ClientOptions{
		LoggingMessageHandler:       func(_ context.Context, r *mcp.LoggingMessageRequest) { lc.logs <- r.Params },
		ProgressNotificationHandler: func(_ context.Context, r *mcp.ProgressNotificationClientRequest) { lc.progress <- r.Params },
	})
	cs, err := c.Connect(context.Background(), &mcp.StreamableClientTransport{Endpoint: url}, &mcp.ClientSessionOptions{ProtocolVersion: era})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cs.Close() })
	return lc, cs
}

func callOK(t *testing.T, cs *mcp.ClientSession, p *mcp.CallToolParams) *mcp.CallToolResult {
	t.Helper()
	if p.Arguments == nil {
		p.Arguments = map[string]any{}
	}
	r, err := cs.CallTool(context.Background(), p)
	if err != nil {
		t.Fatalf("%s: %v", p.Name, err)
	}
	return r
}

// A command's output that is an image or audio reaches the client as image or audio
// content, sniffed or as the tool declares it; text stays text.
func TestCommandMediaOutput(t *testing.T) {
	url := startProtocolServer(t)
	_, cs := connectProtocol(t, url, "2025-11-25")
	pic, _ := base64.StdEncoding.DecodeString(png1x1)

	r := callOK(t, cs, &mcp.CallToolParams{Name: "png"})
	if img, ok := r.Content[0].(*mcp.ImageContent); r.IsError || !ok || img.MIMEType != "image/png" || !bytes.Equal(img.Data, pic) {
		t.Errorf("png = %#v", r.Content[0])
	}
	r = callOK(t, cs, &mcp.CallToolParams{Name: "wav"})
	if a, ok := r.Content[0].(*mcp.AudioContent); r.IsError || !ok || a.MIMEType != "audio/wav" || !bytes.Equal(a.Data, wavHeader) {
		t.Errorf("wav = %#v", r.Content[0])
	}
	r = callOK(t, cs, &mcp.CallToolParams{Name: "svg"})
	if img, ok := r.Content[0].(*mcp.ImageContent); r.IsError || !ok || img.MIMEType != "image/svg+xml" || !strings.HasPrefix(string(img.Data), "<svg") {
		t.Errorf("svg = %#v", r.Content[0])
	}
	r = callOK(t, cs, &mcp.CallToolParams{Name: "not_audio"})
	if !r.IsError || !strings.Contains(text(r), "declares audio output, but the output is text/plain") {
		t.Errorf("not_audio = %v %q", r.IsError, text(r))
	}
	r = callOK(t, cs, &mcp.CallToolParams{Name: "png_as_binary"})
	if e, ok := r.Content[0].(*mcp.EmbeddedResource); r.IsError || !ok || e.Resource.MIMEType != "image/png" || !bytes.Equal(e.Resource.Blob, pic) {
		t.Errorf("png_as_binary = %#v", r.Content[0])
	}
	r = callOK(t, cs, &mcp.CallToolParams{Name: "plain"})
	if r.IsError || text(r) != "just text\n" {
		t.Errorf("plain = %q", text(r))
	}
}

// A command's stderr lines reach the client as log notifications at the tool's level,
// filtered by the client's level and scrubbed of secrets, in both eras; log_stderr: off
// sends none.
func TestCommandStderrLogs(t *testing.T) {
	url := startProtocolServer(t)
	for _, era := range []string{"2025-11-25", "2026-07-28"} {
		t.Run(era, func(t *testing.T) {
			lc, cs := connectProtocol(t, url, era)
			params := func(name string, level mcp.LoggingLevel) *mcp.CallToolParams {
				p := &mcp.CallToolParams{Name: name, Arguments: map[string]any{}}
				if era >= "2026-07-28" {
					p.Meta = mcp.Meta{mcp.MetaKeyLogLevel: string(level)}
				} else if err := cs.SetLoggingLevel(context.Background(), &mcp.SetLoggingLevelParams{Level: level}); err != nil {
					t.Fatal(err)
				}
				return p
			}
			if r := callOK(t, cs, params("chatty", "info")); r.IsError || text(r) != "done\n" {
				t.Fatalf("chatty = %q", text(r))
			}
			var got []string
			for range 3 {
				select {
				case m := <-lc.logs:
					if m.Level != "info" || m.Logger != "s/chatty" {
						t.Errorf("log message %+v", m)
					}
					got = append(got, m.Data.(string))
				case <-time.After(5 * time.Second):
					t.Fatalf("log messages so far %q, want 3", got)
				}
			}
			want := []string{"starting", "token [env PROTOCOL_TEST_TOKEN]", "no newline"}
			if strings.Join(got, "|") != strings.Join(want, "|") {
				if strings.Contains(strings.Join(got, "|"), "s3cr3t") {
					t.Fatalf("a secret reached the client: %q", got)
				}
				t.Errorf("logs = %q, want %q", got, want)
			}

			// The client's level filters: warning passes at warning, info does not.
			callOK(t, cs, params("chatty", "warning"))
			callOK(t, cs, params("warns", "warning"))
			select {
			case m := <-lc.logs:
				if m.Data != "careful" || m.Level != "warning" {
					t.Errorf("at warning: %+v", m)
				}
			case <-time.After(5 * time.Second):
				t.Fatal("the warning-level stderr line did not arrive")
			}
			callOK(t, cs, params("quiet", "debug"))
			select {
			case m := <-lc.logs:
				t.Errorf("unexpected log message %+v", m)
			case <-time.After(300 * time.Millisecond):
			}
		})
	}
}

// The progress of a running command says how long it ran and leaves the total out: it is
// unknown (the timeout is not a total).
func TestCommandProgressWithoutTotal(t *testing.T) {
	url := startProtocolServer(t)
	lc, cs := connectProtocol(t, url, "2025-11-25")
	p := &mcp.CallToolParams{Name: "slow", Arguments: map[string]any{}}
	p.SetProgressToken("tok")
	callOK(t, cs, p)
	select {
	case n := <-lc.progress:
		if n.ProgressToken != "tok" || n.Total != 0 || n.Progress < 1 || !strings.Contains(n.Message, "slow running for") {
			t.Errorf("progress = %+v", n)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("no progress notification")
	}
}

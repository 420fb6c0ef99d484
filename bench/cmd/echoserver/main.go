// Command echoserver is the upstream MCP server of the benchmark's upstream mode
// (`go run ./bench -mode upstream`): a go-sdk server with one tool, echo, that returns its
// message as text. It is what a small MCP server written with the go-sdk costs, so that the
// benchmark measures the gateway's forwarding and not the upstream's work.
//
//	echoserver stdio     # MCP on stdin/stdout (newline-delimited JSON-RPC)
//	echoserver http      # Streamable HTTP at http://127.0.0.1:PORT/mcp; prints {"addr":...}
//	                     # on stdout once it listens and serves until stdin closes
//
// Over HTTP it serves both protocol eras like mcpbridge does: 2026-07-28 requests
// (MCP-Protocol-Version) statelessly, older ones with sessions.
package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log"
	"net"
	"net/http"
	"os"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

const schema = `{"type":"object","properties":{"message":{"type":"string"}},"required":["message"]}`

func newServer() *mcp.Server {
	s := mcp.NewServer(&mcp.Implementation{Name: "echo", Version: "1"}, nil)
	s.AddTool(&mcp.Tool{Name: "echo", Description: "Returns the message", InputSchema: json.RawMessage(schema)},
		func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			var in struct {
				Message string `json:"message"`
			}
			if err := json.Unmarshal(req.Params.Arguments, &in); err != nil {
				return nil, err
			}
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: in.Message}}}, nil
		})
	return s
}

func main() {
	log.SetFlags(0)
	log.SetPrefix("echoserver: ")
	if len(os.Args) != 2 {
		log.Fatal("usage: echoserver stdio|http")
	}
	switch os.Args[1] {
	case "stdio":
		if err := newServer().Run(context.Background(), &mcp.StdioTransport{}); err != nil && err != io.EOF {
			log.Fatal(err)
		}
	case "http":
		s := newServer()
		get := func(*http.Request) *mcp.Server { return s }
		legacy := mcp.NewStreamableHTTPHandler(get, nil)
		modern := mcp.NewStreamableHTTPHandler(get, &mcp.StreamableHTTPOptions{Stateless: true})
		mux := http.NewServeMux()
		mux.Handle("/mcp", http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if r.Header.Get("Mcp-Protocol-Version") >= "2026-07-28" {
				modern.ServeHTTP(w, r)
			} else {
				legacy.ServeHTTP(w, r)
			}
		}))
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			log.Fatal(err)
		}
		go http.Serve(ln, mux)
		fmt.Printf("{\"addr\":%q}\n", ln.Addr().String())
		io.Copy(io.Discard, os.Stdin)
	default:
		log.Fatalf("unknown mode %q: stdio or http", os.Args[1])
	}
}

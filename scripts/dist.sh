#!/usr/bin/env bash
# dist.sh — build mcpbridge for linux and darwin on amd64 and arm64, and windows on amd64, into
# dist/, without cgo, with the version stamped (mcpbridge version prints it). The linux
# binaries are static; the darwin ones link macOS's own libraries dynamically (libSystem,
# libresolv, the CoreFoundation and Security frameworks), as every Go darwin binary does:
# macOS has no static libc, and these are part of every macOS; the windows one uses only
# Windows' own DLLs. VERSION overrides the version taken from git.
set -euo pipefail
cd "$(dirname "$0")/.."
version="${VERSION:-$(git describe --tags --always --dirty 2>/dev/null || echo dev)}"
mkdir -p dist
for os in linux darwin; do
	for arch in amd64 arm64; do
		out="dist/mcpbridge-${version}-${os}-${arch}"
		CGO_ENABLED=0 GOOS=$os GOARCH=$arch go build -trimpath \
			-ldflags "-s -w -X github.com/mcpbridge/mcpbridge/internal/cli.Version=${version}" \
			-o "$out" ./cmd/mcpbridge
		case $os in
		linux) echo "$out (static)" ;;
		darwin) echo "$out (links macOS's libSystem, libresolv, CoreFoundation and Security dynamically, as every Go darwin binary)" ;;
		esac
	done
done
out="dist/mcpbridge-${version}-windows-amd64.exe"
CGO_ENABLED=0 GOOS=windows GOARCH=amd64 go build -trimpath \
	-ldflags "-s -w -X github.com/mcpbridge/mcpbridge/internal/cli.Version=${version}" \
	-o "$out" ./cmd/mcpbridge
echo "$out (uses Windows' own DLLs; children are stopped through job objects, docs/deployment.md#windows)"

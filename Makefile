# mcpbridge — `make test` installs what the tests need and runs them all.
.PHONY: test build dist serve bench fuzz

test:
	scripts/test.sh

build:
	go build -o mcpbridge ./cmd/mcpbridge

# Static binaries for linux/darwin x amd64/arm64 in dist/, version stamped.
dist:
	scripts/dist.sh

serve:
	go run ./cmd/mcpbridge serve

# make bench BENCH="-mode upstream" runs one part (see docs/benchmarks.md).
bench:
	go run ./bench $(BENCH)

fuzz:
	go test -run '^$$' -fuzz FuzzHTTPEntry -fuzztime 60s ./internal/gateway
	go test -run '^$$' -fuzz FuzzParse -fuzztime 60s ./internal/backend/all

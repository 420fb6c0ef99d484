# mcpbridge — `make test` installs what the tests need and runs them all.
.PHONY: test build dist serve bench fuzz soak

test:
	scripts/test.sh

build:
	go build -o mcpbridge ./cmd/mcpbridge

# Binaries for linux and darwin x amd64/arm64 and windows/amd64 in dist/, version stamped,
# without cgo: the linux
# ones are static; the darwin ones link macOS's own libraries dynamically (libSystem, libresolv,
# CoreFoundation, Security), as every Go darwin binary does, and need nothing else installed
# (docs/deployment.md#binaries).
dist:
	scripts/dist.sh

serve:
	go run ./cmd/mcpbridge serve

# make bench BENCH="-mode upstream" runs one part (see docs/benchmarks.md).
bench:
	go run ./bench $(BENCH)

# Every fuzz target of the module for FUZZTIME each (the test command runs them for 30s).
FUZZTIME ?= 60s
fuzz:
	FUZZTIME=$(FUZZTIME) scripts/fuzz.sh

# The longer runs behind the test command's suites: the load suite with 1,000 clients for
# 60 s in each protocol era, the fault suite, and every fuzz target for SOAK_FUZZTIME.
# Needs PostgreSQL (scripts/setup-postgres.sh), like make test.
SOAK_CLIENTS ?= 1000
SOAK_DURATION ?= 60s
SOAK_FUZZTIME ?= 5m
soak:
	eval "$$(scripts/setup-postgres.sh)" && export MCPBRIDGE_TEST_POSTGRES && \
	MCPBRIDGE_LOAD_CLIENTS=$(SOAK_CLIENTS) MCPBRIDGE_LOAD_DURATION=$(SOAK_DURATION) \
		go test -json -count=1 -timeout 30m -run '^(TestLoad|TestFaultKillDuringInteract|TestFaultPostgresRestart|TestFaultPostgresOutageAudit|TestFaultUpstreams)$$' ./e2e | \
		go run ./scripts/testlog -show 'LOAD|calls: before|first success|^--- ' && \
	FUZZTIME=$(SOAK_FUZZTIME) scripts/fuzz.sh

# configuration-kcp: the README's two commands are `make demo` (a local control plane with the packages
# installed and examples/basic applied) and `make test` (everything CI runs).
# Every tool is built from pinned Go modules into bin/ on first use.

SHELL := /bin/bash
.SHELLFLAGS := -eu -o pipefail -c
# Every go command make runs uses Go 1.27.3, whatever Go the machine starts with: the go command
# fetches that toolchain once from the Go module proxy (76 MB). go.mod says go 1.27, so a go
# command run by hand needs it too: export GOTOOLCHAIN=go1.27.3.
GO_TOOLCHAIN := go1.27.3
export GOTOOLCHAIN := $(GO_TOOLCHAIN)
BIN := $(CURDIR)/bin
OUTPUT := $(CURDIR)/_output
include make/tools.mk
include make/e2e-tools.mk
include make/package.mk

FUNCTION := $(BIN)/function-kcp
GO_SOURCES := $(shell find apis functions -name '*.go' -not -name '*_test.go') go.mod go.sum

.PHONY: all
all: generate test

## function: build the composition function binary into bin/.
$(FUNCTION): $(GO_SOURCES)
	@echo "building function-kcp"
	@CGO_ENABLED=0 go build -trimpath -o $@ ./functions/kcp

.PHONY: function
function: $(FUNCTION)

## generate: regenerate the XRDs and Compositions from the Go types in apis/v1alpha1, and the
## API reference in docs/reference from the XRDs.
# apidocs is small and our own: go run it (cached by the build cache) rather than pin a binary.
APIDOCS := cd $(CURDIR)/test/tools && GOWORK=off go run ./apidocs
# Every Composition is one step calling the package's function, under the name Crossplane gives
# the function installed as the Configuration's dependency.
XRDGEN_ARGS := -paths ./apis/... -out apis -function configuration-kcp-function-kcp -step compose-kcp
.PHONY: generate
generate: $(XRDGEN)
	@$(XRDGEN) $(XRDGEN_ARGS)
	@$(APIDOCS) -apis $(CURDIR)/apis -out $(CURDIR)/docs/reference

## check-generate: fail when a generated XRD, Composition or API reference page is stale.
.PHONY: check-generate
check-generate: $(XRDGEN)
	@$(XRDGEN) $(XRDGEN_ARGS) -check
	@$(APIDOCS) -apis $(CURDIR)/apis -out $(CURDIR)/docs/reference -check

## render: render every example through `crossplane composition render`, fresh and converged,
## into _output/render/<example>/{fresh,converged}.yaml.
.PHONY: render
render: $(FUNCTION)
	$(call build_tools,$(CROSSPLANE) $(CROSSPLANE_CORE))
	@go run ./test/render/cmd/kcp-render -examples examples -out $(OUTPUT)/render

## bench: benchmark RunFunction per XR kind and state (fresh, converged; a RootShard with
## every feature, installations with 10 and 100 shards) and print the table: time, memory,
## allocations, response size and the ratio to the protobuf floor. Raw output in
## _output/bench/runfunction.txt. BENCH_TIME sets -benchtime.
BENCH_TIME ?= 1s
.PHONY: bench
bench:
	@mkdir -p $(OUTPUT)/bench
	@echo "== RunFunction benchmarks (about a minute)"
	@go test -run '^$$' -bench RunFunction -benchmem -benchtime=$(BENCH_TIME) -count=1 ./functions/kcp/ > $(OUTPUT)/bench/runfunction.txt
	@go run ./test/bench/cmd/benchtable < $(OUTPUT)/bench/runfunction.txt

## load: start the function server with mutual TLS and send it a converged RootShard from 1,
## 10 and 100 concurrent callers for LOAD_DURATION each; prints p50/p99 latency, throughput
## and the server's RSS.
LOAD_DURATION ?= 10s
.PHONY: load
load: $(FUNCTION)
	@go run ./test/load/cmd/kcp-load -function $(FUNCTION) -duration $(LOAD_DURATION) -callers 1,10,100

## fuzz: each fuzz target of the function (RunFunction per XR kind with arbitrary XRs and
## observed state) for FUZZ_TIME; prints the executions per target. Output, and any failing
## input, in _output/fuzz/ (a failing input is also written to functions/kcp/testdata/fuzz/).
## make test runs it with FUZZ_TIME=4500x: ten targets, the 45,000 executions nine took at 5000x.
## -tags fuzz leaves out the one test that links client-go (functions/kcp/sdk_test.go): fuzzing
## instruments every package the binary links, and without it a first run compiles about half.
## FUZZ_TIME counts executions (Nx), not seconds: with a duration, Go 1.26's fuzz coordinator can
## fail a target with a bare "context deadline exceeded" and no failing input when the deadline
## meets a busy worker (golang/go#75804, fixed in Go 1.27). A count has no deadline to race.
FUZZ_TIME ?= 100000x
.PHONY: fuzz
fuzz:
	@mkdir -p $(OUTPUT)/fuzz
	@echo "== fuzzing RunFunction, $(FUZZ_TIME) per target"
	@for t in $$(go test -tags fuzz -list '^Fuzz' ./functions/kcp/ | grep '^Fuzz'); do \
		go test -tags fuzz -run '^$$' -fuzz "^$$t$$" -fuzztime $(FUZZ_TIME) -fuzzminimizetime 5x ./functions/kcp/ > $(OUTPUT)/fuzz/$$t.txt 2>&1 \
			|| { cat $(OUTPUT)/fuzz/$$t.txt; echo "$$t failed; the input is in functions/kcp/testdata/fuzz/$$t/" >&2; exit 1; }; \
		n=$$(grep -o 'execs: [0-9]*' $(OUTPUT)/fuzz/$$t.txt | tail -1 | cut -d' ' -f2 || true); \
		c=$$(grep -o 'coverage: [0-9]*/[0-9]*' $(OUTPUT)/fuzz/$$t.txt | tail -1 | cut -d/ -f2 || true); \
		echo "$$t: $${n:-0} new inputs executed, no failure (corpus from earlier runs: $${c:-0} inputs)"; \
	done

## unit: fast unit tests of the API types and the function.
.PHONY: unit
unit:
	@go test ./apis/... ./functions/...

## e2e-schema: check the XRDs against a real etcd and kube-apiserver (in a private network
## namespace): every XRD's CRD is established (its CEL rules compile), every example XR is
## admitted, and invalid XRs are rejected with their rule's message. Logs in _output/e2e/.
.PHONY: e2e-schema
e2e-schema: $(CROSSPLANE) $(E2E_ETCD) $(E2E_KUBE_APISERVER) $(E2E_KUBECTL)
	@go test ./test/e2e/schema/ -count=1

## crd-cost: measure what this package's CRDs cost a real etcd and kube-apiserver (in a
## private network namespace): per CRD, as Crossplane creates it from its XRD, its sizes, the
## time to create it, to Established and to its first request served, a no-op update; the API
## server's RSS before and after, and the OpenAPI documents. KCP_OPERATOR_CRDS=<dir of
## kcp-operator's CRDs, its config/crd/bases> measures those too, on a control plane of their
## own. Prints the table docs/performance.md shows and writes it to _output/e2e/crd-cost.md.
.PHONY: crd-cost
crd-cost: $(CROSSPLANE) $(E2E_ETCD) $(E2E_KUBE_APISERVER) $(E2E_KUBECTL)
	@E2E_CRD_COST=1 go test ./test/e2e/schema/ -run '^TestCRDCost$$' -count=1 -v -timeout=30m

HOST_ARCH := $(shell go env GOARCH)
# The e2e pushes every arch's Function package as one multi-arch index, as `make push` does,
# so Crossplane picks the host's platform from it.
E2E_PACKAGES := E2E_FUNCTION_XPKG=$(subst $() ,$(comma),$(strip $(FUNCTION_XPKGS))) E2E_CONFIGURATION_XPKG=$(CONFIGURATION_XPKG)

# What each command needs, built first by build_tools (make/tools.mk): missing tools side by
# side, with progress. The demo needs no Crossplane CLI (make/package.mk builds packages with
# xpkgbuild) and no etcdctl; the order pairs different modules for the side-by-side builds.
# make demo DEMO_CROSSPLANE=oldest runs the oldest supported Crossplane line (v2.3) in place of
# the newest (v2.4); DEMO_REST=5m prints, in each 5-minute window once examples/basic is up, the
# RunFunction calls and Crossplane's API requests (what docs/performance.md's "At rest" quotes).
DEMO_CROSSPLANE ?= newest
DEMO_REST ?= 0
DEMO_CROSSPLANE_CORE := $(if $(filter oldest,$(DEMO_CROSSPLANE)),$(CROSSPLANE_CORE),$(CROSSPLANE_CORE_NEXT))
DEMO_TOOLS := $(E2E_KUBE_APISERVER) $(DEMO_CROSSPLANE_CORE) $(E2E_CERT_MANAGER_CONTROLLER) $(E2E_KUBE_CONTROLLER_MANAGER) \
	$(E2E_PROVIDER_KUBERNETES) $(E2E_KUBE_SCHEDULER) $(E2E_ETCD) $(E2E_KUBECTL) $(E2E_KWOK) $(RUNTIME_IMAGE) $(XPKG_BUILD)
E2E_NEEDS := $(E2E_TOOLS) $(CROSSPLANE) $(CROSSPLANE_CORE) $(CROSSPLANE_CORE_NEXT) $(RUNTIME_IMAGE) $(XPKG_BUILD)
TEST_TOOLS := $(DEMO_TOOLS) $(CROSSPLANE) $(GOLANGCI_LINT) $(CROSSPLANE_CORE) $(XRDGEN) \
	$(E2E_CERT_MANAGER_CONTROLLER_OLDEST) $(E2E_PROVIDER_KUBERNETES_OLDEST) $(E2E_ETCDCTL) $(E2E_ETCDUTL)

## e2e: install the packages `make build` produces on a real control plane (etcd,
## kube-apiserver, kube-controller-manager, cert-manager, Crossplane; local processes in a
## private network namespace) and run the scenarios of test/e2e/scenarios: basic, renewal,
## bad input, delete, migrate from kcp-operator, sharded, a tenant's KcpInstallation, a claim,
## kcp's three production topologies side by side (each as a KcpInstallation and as per-kind
## XRs), provider-kubernetes on a kcp stand-in (StandIn), scale, faults.
## Progress on standard error; logs in _output/e2e/. E2E_RUN='TestKCP/(Basic|Delete|Migrate)$$'
## runs some of them (-test.run); E2E_RUN='TestKCP/StandIn' runs StandIn alone. E2E_FLAGS adds
## flags of the test binary: E2E_FLAGS=-test.v shows every command a scenario runs.
E2E_RUN ?=
E2E_FLAGS ?=
.PHONY: e2e
e2e:
	$(call build_tools,$(E2E_NEEDS) $(if $(KCP_BIN),$(E2E_REALKCP_TOOLS)) $(if $(E2E_KUBERNETES_NEXT),$(E2E_KUBERNETES_NEXT_TOOLS)))
	@$(MAKE) --no-print-directory build $(E2E_PROVIDER_KUBERNETES_XPKG) $(E2E_PROVIDER_KUBERNETES_OLDEST_XPKG) $(if $(KCP_BIN),$(E2E_REALKCP_PACKAGES))
	@echo "== end-to-end scenarios on a real control plane (about 29 minutes; logs in _output/e2e/TestKCP)"
	@go test -c -o $(OUTPUT)/e2e/scenarios.test ./test/e2e/scenarios/
	@# The test binary runs directly, not under go test, so its progress lines stream live.
	@# The e2e takes about 29 minutes on 2 cores, after about 35 minutes of tools and other tests
	@# on a fresh machine (docs/performance.md, "A first run"): 55m leaves a slower machine
	@# twice the time and still fails, with every goroutine's stack, before CI's 90 minutes.
	@# -test.parallel: the two top-level tests and three topologies run side by side (the
	@# default is one per core).
	@# On failure the failing tests and their messages (a timeout's panic, which goes to
	@# standard error, too) are printed again last, where a CI log's tail shows them; the whole
	@# output stays in $(OUTPUT)/e2e/scenarios.out.
	@status=0; $(E2E_PACKAGES) $(OUTPUT)/e2e/scenarios.test -test.timeout=55m -test.parallel=5 $(if $(E2E_RUN),-test.run '$(E2E_RUN)') $(E2E_FLAGS) \
	  2>&1 | tee $(OUTPUT)/e2e/scenarios.out || status=$$?; \
	if [ $$status -ne 0 ]; then echo "== e2e failures (whole output in $(OUTPUT)/e2e/scenarios.out)"; \
	  grep -E '^ *--- FAIL|^ *[a-z0-9_]+\.go:[0-9]+: |^panic: ' $(OUTPUT)/e2e/scenarios.out | grep -vE ' main_test\.go:[0-9]+: \[ *[0-9.]+s\] ' | cut -c1-600 | head -n 80; fi; \
	exit $$status

## fleet: the Fleet scenario alone, on a control plane of its own: TEAMS teams (0 to 8) sharing
## one installation (Tenants, Kubeconfigs, Workspaces, on a kcp stand-in), then N
## KcpInstallations (examples/installation, each in its own namespace) created at once, then a
## rest window over all (E2E_REST_WINDOW, default 2m). Prints time to Ready against
## cert-manager alone for the same certificates, CPU and memory per process, and the cost at
## rest per installation per minute (docs/performance.md, "A fleet of installations").
## CORE=current runs it on Crossplane v2.3, the default (next) on v2.4. Outside CI; how long
## each N takes is in that section.
N ?= 10
TEAMS ?= 0
CORE ?= next
.PHONY: fleet
fleet:
	@E2E_FLEET=$(N) E2E_FLEET_TEAMS=$(TEAMS) E2E_FLEET_CORE=$(CORE) $(MAKE) --no-print-directory e2e E2E_RUN='^TestFleet$$$$'

## package-test: check the built packages (make build): the Configuration holds exactly
## crossplane.yaml and apis/*, pins the function at VERSION and carries registry metadata;
## every Function package embeds a non-root runtime image of its architecture.
.PHONY: package-test
package-test: build $(CROSSPLANE)
	@$(E2E_PACKAGES) go test ./test/pkg/ -count=1

## demo: bring up the local control plane, install the packages, apply examples/basic and
## show the XRs until the certificates are issued and the kubeconfig Secret exists; keeps
## running until Ctrl-C (or `make demo-down` in another terminal). Logs in _output/demo/.
## Builds only what it runs: the packages for this machine's architecture, no Crossplane CLI.
.PHONY: demo demo-down
demo:
	$(call build_tools,$(DEMO_TOOLS))
	@$(MAKE) --no-print-directory build ARCHS=$(HOST_ARCH) $(E2E_PROVIDER_KUBERNETES_XPKG)
	@go build -o $(OUTPUT)/demo/kcp-demo ./test/e2e/cmd/kcp-demo
	@# CROSSPLANE is emptied: the demo installs without the CLI, whether or not bin/ has it. It
	@# runs the newest Crossplane, whose installations are quiet at rest (README, "Once converged").
	@CROSSPLANE= CROSSPLANE_CORE=$(DEMO_CROSSPLANE_CORE) $(OUTPUT)/demo/kcp-demo -function $(PACKAGE_DIR)/function-kcp-$(HOST_ARCH).xpkg -configuration $(CONFIGURATION_XPKG) \
	  -crossplane $(DEMO_CROSSPLANE) -rest $(DEMO_REST)

demo-down:
	@if [ -f $(OUTPUT)/demo/demo.pid ] && kill $$(cat $(OUTPUT)/demo/demo.pid) 2>/dev/null; then \
	  echo "stopping the demo (pid $$(cat $(OUTPUT)/demo/demo.pid))"; rm -f $(OUTPUT)/demo/demo.pid; \
	else echo "no demo running"; fi

## lint: golangci-lint over the root module (the function, its APIs, the tests); .golangci.yml
## says which linters and why. It checks gofmt too and runs go vet's checks.
.PHONY: lint
lint: $(GOLANGCI_LINT)
	@echo "== golangci-lint (gofmt, vet and the linters of .golangci.yml)"; $(GOLANGCI_LINT) run ./...

## test: everything CI runs. The end-to-end packages under test/e2e need the binaries the
## e2e targets build, so they run through those targets, not through `go test ./...`.
.PHONY: test
test:
	$(call build_tools,$(TEST_TOOLS))
	@$(MAKE) --no-print-directory check-generate $(FUNCTION)
	@$(MAKE) --no-print-directory lint
	@# The render package converges every example through the Crossplane CLI, minutes on 2
	@# cores (docs/performance.md, "A first run"): 30m, not go test's 10-minute default, leaves
	@# a slower machine room.
	@echo "== unit and render tests"; go test -timeout 30m $$(go list ./... | grep -v '/test/e2e/scenarios\|/test/e2e/schema\|/test/pkg')
	@echo "== tools modules' tests"; cd test/tools && GOWORK=off go test ./... && cd xrdgen && GOWORK=off go test ./...
	@echo "== benchmarks, one iteration each (they must keep working; make bench measures)"; go test -run '^$$' -bench RunFunction -benchtime=1x ./functions/kcp/ > /dev/null
	@$(MAKE) --no-print-directory fuzz FUZZ_TIME=4500x
	@echo "== package tests"; $(MAKE) --no-print-directory package-test
	@echo "== schema tests against a real API server"; $(MAKE) --no-print-directory e2e-schema
	@$(MAKE) --no-print-directory e2e

.PHONY: clean
clean:
	rm -rf $(OUTPUT)

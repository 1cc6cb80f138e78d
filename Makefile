# configuration-kcp: the two commands a user needs are `make render` and `make test`.
# Every tool is built from pinned Go modules into bin/ on first use.

SHELL := /bin/bash
.SHELLFLAGS := -eu -o pipefail -c
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

## generate: regenerate the XRDs from the Go types in apis/v1alpha1.
.PHONY: generate
generate: $(XRDGEN)
	@$(XRDGEN) -paths ./apis/... -out apis

## check-generate: fail when a generated XRD is stale.
.PHONY: check-generate
check-generate: $(XRDGEN)
	@$(XRDGEN) -paths ./apis/... -out apis -check

## render: render every example through `crossplane composition render`, fresh and converged,
## into _output/render/<example>/{fresh,converged}.yaml.
.PHONY: render
render: $(FUNCTION) $(CROSSPLANE) $(CROSSPLANE_CORE)
	@go run ./test/render/cmd/kcp-render -examples examples -out $(OUTPUT)/render

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

## test: everything CI runs. The end-to-end packages under test/e2e need the binaries the
## e2e targets build, so they run through those targets, not through `go test ./...`.
.PHONY: test
test: check-generate $(FUNCTION) $(CROSSPLANE) $(CROSSPLANE_CORE)
	@echo "== vet"; go vet ./...
	@echo "== unit and render tests"; go test $$(go list ./... | grep -v '/test/e2e/')
	@echo "== tools module tests"; cd test/tools && GOWORK=off go test ./...
	@echo "== schema tests against a real API server"; $(MAKE) --no-print-directory e2e-schema

.PHONY: clean
clean:
	rm -rf $(OUTPUT)

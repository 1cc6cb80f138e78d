# make/tools.mk: pinned developer tools, built from the separate Go module in
# test/tools into a git-ignored $(BIN). Include it from the root Makefile:
#
#   BIN := $(CURDIR)/bin      # optional; must be set before the include
#   include make/tools.mk
#
# Every tool is built once per pinned version into a versioned file
# ($(BIN)/crossplane-v2.5.0, ...) and exposed through a stable symlink
# ($(BIN)/crossplane, ...). Bumping a version builds the new file; switching
# back to an already built version only re-points the symlink.
#
# The versions below must match test/tools/go.mod; each recipe checks that
# before building. To bump one: `cd test/tools && go get -tool <pkg>@<version>`
# (go-containerregistry, a library: `go get <module>@<version>`), then change
# the variable here.

BIN ?= $(CURDIR)/bin

CROSSPLANE_CLI_VERSION   := v2.5.0
CROSSPLANE_CORE_VERSION  := v2.3.5
# The newer core the e2e also runs on, pinned by its own module (test/tools/crossplane-next):
# v2.4.2, the newest the Go module proxy serves. The proxy does not serve the
# crossplane-runtime v2.4.2 it names, so that module replaces it with runtime v2.4.0 (what
# this changes is in test/tools/README.md).
CROSSPLANE_CORE_NEXT_VERSION := v2.4.2
# xrdgen is pinned by its own module (test/tools/xrdgen): controller-tools v0.23 needs the
# Kubernetes libraries the root module builds with (v0.37), newer than the Crossplane tools'.
CONTROLLER_TOOLS_VERSION := v0.23.0
GGCR_VERSION             := v0.21.9
# golangci-lint is pinned by its own module (test/tools/golangci-lint): its linters' dependencies
# must not move the versions the Crossplane tools build with.
GOLANGCI_LINT_VERSION    := v2.15.0

CROSSPLANE      := $(BIN)/crossplane
CROSSPLANE_CORE := $(BIN)/crossplane-core
CROSSPLANE_CORE_NEXT := $(BIN)/crossplane-core-next
XRDGEN          := $(BIN)/xrdgen
RUNTIME_IMAGE   := $(BIN)/runtime-image
XPKG_BUILD      := $(BIN)/xpkgbuild
GOLANGCI_LINT   := $(BIN)/golangci-lint
export CROSSPLANE CROSSPLANE_CORE CROSSPLANE_CORE_NEXT XRDGEN RUNTIME_IMAGE XPKG_BUILD

# PROGRESS wraps each tool's build: which tool, how many are left, how long it took.
PROGRESS := $(abspath $(dir $(lastword $(MAKEFILE_LIST))))/progress.sh
# TOOLS_JOBS tools build side by side: on 2 cores two go builds overlap one's linking and
# module downloads with the other's compiling.
TOOLS_JOBS ?= 2

# $(call build_tools,<files>): build those of <files> that are missing, TOOLS_JOBS at a time,
# with progress. A command's recipe calls it first, so that the tools it needs build side by
# side (make's prerequisites would build one after another) and the count covers them all.
# A tool is missing when its file is, or when make would remake it: a link to another version
# (a bumped pin, or the Go a linter must be built with) or our own tool's changed sources.
define build_tools
	@missing=""; for f in $(1); do [ -e "$$f" ] && $(MAKE) -q --no-print-directory "$$f" 2>/dev/null || missing="$$missing $$f"; done; \
	if [ -n "$$missing" ]; then \
	  n=$$(echo $$missing | wc -w); \
	  echo "== building $$n pinned tools into $(BIN), $(TOOLS_JOBS) at a time (once; later runs skip them)"; \
	  BUILD_PROGRESS=$$(mktemp -d) BUILD_TOTAL=$$n; export BUILD_PROGRESS BUILD_TOTAL; \
	  $(MAKE) --no-print-directory -j$(TOOLS_JOBS) $$missing; status=$$?; rm -rf "$$BUILD_PROGRESS"; exit $$status; \
	fi
endef

TOOLS_DIR := $(abspath $(dir $(lastword $(MAKEFILE_LIST)))../test/tools)

# Build from inside the tools module, never through a go.work of the caller.
TOOLS_GO := cd $(TOOLS_DIR) && GOWORK=off go
TOOLS_NEXT_GO := cd $(TOOLS_DIR)/crossplane-next && GOWORK=off go
TOOLS_LINT_GO := cd $(TOOLS_DIR)/golangci-lint && GOWORK=off go
TOOLS_XRDGEN_GO := cd $(TOOLS_DIR)/xrdgen && GOWORK=off go
TOOLS_VERSION_LDFLAG := github.com/crossplane/crossplane-runtime/v2/pkg/version.version

XRDGEN_SRCS := $(filter-out %_test.go,$(wildcard $(TOOLS_DIR)/xrdgen/*.go)) \
	$(TOOLS_DIR)/xrdgen/go.mod $(TOOLS_DIR)/xrdgen/go.sum
RUNTIME_IMAGE_SRCS := $(filter-out %_test.go,$(wildcard $(TOOLS_DIR)/runtimeimage/*.go)) \
	$(TOOLS_DIR)/go.mod $(TOOLS_DIR)/go.sum
XPKG_BUILD_SRCS := $(filter-out %_test.go,$(wildcard $(TOOLS_DIR)/xpkgbuild/*.go)) \
	$(TOOLS_DIR)/go.mod $(TOOLS_DIR)/go.sum

# tools_check_version: fail if test/tools/go.mod does not pin module $(1) at $(2).
define tools_check_version
	@v=$$($(TOOLS_GO) list -m -f '{{.Version}}' $(1) 2>/dev/null) && test "$$v" = "$(2)" || \
	  { echo "make/tools.mk wants $(1) $(2) but test/tools/go.mod has $$v" >&2; exit 1; }
endef

# tools_link: $(1) = stable symlink path, $(2) = versioned file name in $(BIN).
# make stats the symlink's target, so an up-to-date link pointing at another
# version would look current; force a relink when it points elsewhere.
define tools_link
$(1): $(BIN)/$(2)
	@ln -sfn $(2) $(1)
ifneq ($$(shell readlink $(1) 2>/dev/null),$(2))
$(1): _tools_force
endif
endef

.PHONY: tools _tools_force
tools:
	$(call build_tools,$(CROSSPLANE) $(CROSSPLANE_CORE) $(XRDGEN) $(RUNTIME_IMAGE) $(XPKG_BUILD) $(GOLANGCI_LINT))
_tools_force:

$(BIN)/crossplane-$(CROSSPLANE_CLI_VERSION):
	$(call tools_check_version,github.com/crossplane/cli/v2,$(CROSSPLANE_CLI_VERSION))
	@mkdir -p $(BIN)
	@$(PROGRESS) "Crossplane CLI $(CROSSPLANE_CLI_VERSION)" '$(TOOLS_GO) build -trimpath -ldflags "-s -w -X $(TOOLS_VERSION_LDFLAG)=$(CROSSPLANE_CLI_VERSION)" -o $@.tmp github.com/crossplane/cli/v2/cmd/crossplane' && mv $@.tmp $@

$(BIN)/crossplane-core-$(CROSSPLANE_CORE_VERSION):
	$(call tools_check_version,github.com/crossplane/crossplane/v2,$(CROSSPLANE_CORE_VERSION))
	@mkdir -p $(BIN)
	@$(PROGRESS) "Crossplane core $(CROSSPLANE_CORE_VERSION)" '$(TOOLS_GO) build -trimpath -ldflags "-s -w -X $(TOOLS_VERSION_LDFLAG)=$(CROSSPLANE_CORE_VERSION)" -o $@.tmp github.com/crossplane/crossplane/v2/cmd/crossplane' && mv $@.tmp $@

$(BIN)/crossplane-core-$(CROSSPLANE_CORE_NEXT_VERSION):
	@v=$$($(TOOLS_NEXT_GO) list -m -f '{{.Version}}' github.com/crossplane/crossplane/v2 2>/dev/null) && test "$$v" = "$(CROSSPLANE_CORE_NEXT_VERSION)" || \
	  { echo "make/tools.mk wants Crossplane core $(CROSSPLANE_CORE_NEXT_VERSION) but test/tools/crossplane-next/go.mod has $$v" >&2; exit 1; }
	@mkdir -p $(BIN)
	@$(PROGRESS) "Crossplane core $(CROSSPLANE_CORE_NEXT_VERSION)" '$(TOOLS_NEXT_GO) build -trimpath -ldflags "-s -w -X $(TOOLS_VERSION_LDFLAG)=$(CROSSPLANE_CORE_NEXT_VERSION)" -o $@.tmp github.com/crossplane/crossplane/v2/cmd/crossplane' && mv $@.tmp $@

$(BIN)/golangci-lint-$(GOLANGCI_LINT_VERSION)-$(GO_TOOLCHAIN):
	@v=$$($(TOOLS_LINT_GO) list -m -f '{{.Version}}' github.com/golangci/golangci-lint/v2 2>/dev/null) && test "$$v" = "$(GOLANGCI_LINT_VERSION)" || \
	  { echo "make/tools.mk wants golangci-lint $(GOLANGCI_LINT_VERSION) but test/tools/golangci-lint/go.mod has $$v" >&2; exit 1; }
	@mkdir -p $(BIN)
	@$(PROGRESS) "golangci-lint $(GOLANGCI_LINT_VERSION)" '$(TOOLS_LINT_GO) build -trimpath -o $@.tmp github.com/golangci/golangci-lint/v2/cmd/golangci-lint' && mv $@.tmp $@

# xrdgen is our own code: rebuild it when its sources or its module change.
$(BIN)/xrdgen-$(CONTROLLER_TOOLS_VERSION)-$(GO_TOOLCHAIN): $(XRDGEN_SRCS)
	@v=$$($(TOOLS_XRDGEN_GO) list -m -f '{{.Version}}' sigs.k8s.io/controller-tools 2>/dev/null) && test "$$v" = "$(CONTROLLER_TOOLS_VERSION)" || \
	  { echo "make/tools.mk wants controller-tools $(CONTROLLER_TOOLS_VERSION) but test/tools/xrdgen/go.mod has $$v" >&2; exit 1; }
	@mkdir -p $(BIN)
	@$(PROGRESS) "xrdgen (controller-tools $(CONTROLLER_TOOLS_VERSION))" '$(TOOLS_XRDGEN_GO) build -trimpath -buildvcs=false -ldflags "-s -w" -o $@.tmp .' && mv $@.tmp $@

# runtime-image builds the function's runtime image tarball without Docker (see
# make/package.mk). Our own code too, so rebuilt like xrdgen; named after the
# go-containerregistry version because that library writes the image format.
$(BIN)/runtime-image-$(GGCR_VERSION): $(RUNTIME_IMAGE_SRCS)
	$(call tools_check_version,github.com/google/go-containerregistry,$(GGCR_VERSION))
	@mkdir -p $(BIN)
	@$(PROGRESS) "runtime-image (go-containerregistry $(GGCR_VERSION))" '$(TOOLS_GO) build -trimpath -buildvcs=false -ldflags "-s -w" -o $@.tmp ./runtimeimage' && mv $@.tmp $@

# xpkgbuild builds the packages (make/package.mk) with crossplane-runtime's package builder,
# the CLI's own, so that make build needs no Crossplane CLI. Our own code: rebuilt like xrdgen.
$(XPKG_BUILD): $(XPKG_BUILD_SRCS)
	@mkdir -p $(BIN)
	@$(PROGRESS) "xpkgbuild (crossplane-runtime's package builder)" '$(TOOLS_GO) build -trimpath -buildvcs=false -ldflags "-s -w" -o $@.tmp ./xpkgbuild' && mv $@.tmp $@

$(eval $(call tools_link,$(CROSSPLANE),crossplane-$(CROSSPLANE_CLI_VERSION)))
$(eval $(call tools_link,$(CROSSPLANE_CORE),crossplane-core-$(CROSSPLANE_CORE_VERSION)))
$(eval $(call tools_link,$(CROSSPLANE_CORE_NEXT),crossplane-core-$(CROSSPLANE_CORE_NEXT_VERSION)))
# xrdgen and golangci-lint read this repository's Go, so they are built with its Go: the
# toolchain is in their names, and a new one builds them again.
$(eval $(call tools_link,$(XRDGEN),xrdgen-$(CONTROLLER_TOOLS_VERSION)-$(GO_TOOLCHAIN)))
$(eval $(call tools_link,$(RUNTIME_IMAGE),runtime-image-$(GGCR_VERSION)))
$(eval $(call tools_link,$(GOLANGCI_LINT),golangci-lint-$(GOLANGCI_LINT_VERSION)-$(GO_TOOLCHAIN)))

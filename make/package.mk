# make/package.mk: the two Crossplane packages, built without Docker.
# Included from the root Makefile after make/tools.mk (it needs $(XPKG_BUILD)
# and $(RUNTIME_IMAGE); make push, $(CROSSPLANE)). `make build` writes, for every arch in ARCHS:
#
#   $(PACKAGE_DIR)/function-kcp-<arch>               static linux binary
#   $(PACKAGE_DIR)/function-kcp-runtime-<arch>.tar   runtime image (docker-save tarball)
#   $(PACKAGE_DIR)/function-kcp-<arch>.xpkg          Function package with that image embedded
#
# and once, $(PACKAGE_DIR)/configuration-kcp.xpkg (the XRDs and Compositions).
# Every step is a file target, so a second `make build` rebuilds nothing.

# VERSION is the release of both packages. Nothing built here embeds it (an
# xpkg gets its version from the tag it is pushed under), but the
# Configuration depends on the function at one exact version, so the two must
# agree; package-check-version enforces that.
VERSION := $(strip $(file < $(CURDIR)/VERSION))
FUNCTION_PACKAGE := xpkg.crossplane.io/configuration-kcp/function-kcp

# Both architectures users run Crossplane on. `make build ARCHS=amd64` builds one.
ARCHS ?= amd64 arm64
PACKAGE_DIR := $(OUTPUT)/package

FUNCTION_BINS     := $(foreach a,$(ARCHS),$(PACKAGE_DIR)/function-kcp-$(a))
FUNCTION_RUNTIMES := $(foreach a,$(ARCHS),$(PACKAGE_DIR)/function-kcp-runtime-$(a).tar)
FUNCTION_XPKGS    := $(foreach a,$(ARCHS),$(PACKAGE_DIR)/function-kcp-$(a).xpkg)
CONFIGURATION_XPKG := $(PACKAGE_DIR)/configuration-kcp.xpkg
PACKAGES := $(FUNCTION_XPKGS) $(CONFIGURATION_XPKG)

# The Function package root: package/crossplane.yaml, the meta Function. xpkg
# build reads every YAML file under the root, so every file there is a
# prerequisite.
FUNCTION_PACKAGE_SRCS := $(shell find package -type f)

# The Configuration package holds exactly the meta Configuration and, per kind,
# its XRD and Composition. The repository root cannot be the package root:
# xpkg build would also read examples/, test/, docs/ and every other YAML file.
CONFIGURATION_SRCS := crossplane.yaml \
	$(sort $(wildcard apis/*/definition.yaml apis/*/composition.yaml))
CONFIGURATION_STAGE := $(PACKAGE_DIR)/configuration

# Examples go into the package's examples layer (.up/examples.yaml). Only the
# files directly in an example directory, the manifests a user applies
# (examples/README.md): examples/*/testdata/ holds render fixtures, Secrets
# with test CA private keys among them, which a published package must not
# carry. xpkg build does not reject them (it accepts any Kubernetes object as
# an example), so nothing but this selection keeps them out.
PACKAGE_EXAMPLES_SRCS := $(sort $(wildcard examples/*/*.yaml))
PACKAGE_EXAMPLES := $(PACKAGE_DIR)/examples

# A Function package has no examples. --examples-root defaults to ./examples
# of the current directory (not of --package-root), which would put the
# Configuration's examples into the Function package: point it at an empty
# directory instead.
NO_EXAMPLES := $(PACKAGE_DIR)/no-examples

# Prerequisites in rule lines are expanded when make reads them, and the root
# Makefile defines GO_SOURCES after including this file: expand $$(GO_SOURCES)
# a second time, when make builds the rules.
.SECONDEXPANSION:

.PHONY: build push package-check-version _package_force
_package_force:

## build: build the Function package (for every arch in ARCHS) and the Configuration
## package into _output/package/.
build: package-check-version $(PACKAGES)
	@echo "packages (VERSION $(VERSION)):"
	@for f in $(PACKAGES); do printf '  %-60s %12s bytes\n' "$$f" "$$(stat -c %s "$$f")"; done

## push: push both packages to REGISTRY under tag VERSION, the Function as one multi-arch
## index of every arch in ARCHS. Log in to the registry first (docker login or a credential
## helper). The Configuration depends on xpkg.crossplane.io/configuration-kcp/function-kcp:
## from any other REGISTRY, users mirror it with an ImageConfig (see docs/install.md).
REGISTRY ?= xpkg.crossplane.io/configuration-kcp
comma := ,
push: build $(CROSSPLANE)
	@$(CROSSPLANE) xpkg push -f $(subst $() ,$(comma),$(strip $(FUNCTION_XPKGS))) $(REGISTRY)/function-kcp:$(VERSION)
	@echo "pushed $(REGISTRY)/function-kcp:$(VERSION) ($(ARCHS))"
	@$(CROSSPLANE) xpkg push -f $(CONFIGURATION_XPKG) $(REGISTRY)/configuration-kcp:$(VERSION)
	@echo "pushed $(REGISTRY)/configuration-kcp:$(VERSION)"

# package-check-version: VERSION must be the version crossplane.yaml's Configuration depends
# on the function at; otherwise the Configuration would install some other function build.
package-check-version:
	@test -n "$(VERSION)" || { echo "VERSION file is missing or empty" >&2; exit 1; }
	@dep=$$(awk -v pkg='$(FUNCTION_PACKAGE)' ' \
	    /^[[:space:]]*-[[:space:]]/ { if (found) exit; v = "" } \
	    $$1 == "package:" || $$2 == "package:" { if ($$NF == pkg) found = 1 } \
	    $$1 == "version:" || $$2 == "version:" { v = $$NF; gsub(/["\047]/, "", v) } \
	    END { if (found) print v }' crossplane.yaml); \
	test "$$dep" = "$(VERSION)" || { \
	  echo "VERSION is $(VERSION), but crossplane.yaml depends on $(FUNCTION_PACKAGE) version '$$dep':" >&2; \
	  echo "set both to the same version" >&2; exit 1; }

$(FUNCTION_BINS): $(PACKAGE_DIR)/function-kcp-%: $$(GO_SOURCES)
	@echo "package: building function binary linux/$* -> $@"
	@mkdir -p $(@D)
	@CGO_ENABLED=0 GOOS=linux GOARCH=$* go build -trimpath -ldflags "-s -w" -o $@.tmp ./functions/kcp && mv $@.tmp $@

$(FUNCTION_RUNTIMES): $(PACKAGE_DIR)/function-kcp-runtime-%.tar: $(PACKAGE_DIR)/function-kcp-% $(RUNTIME_IMAGE)
	@echo "package: building runtime image linux/$* -> $@"
	@$(RUNTIME_IMAGE) -binary $< -arch $* -o $@

$(FUNCTION_XPKGS): $(PACKAGE_DIR)/function-kcp-%.xpkg: $(PACKAGE_DIR)/function-kcp-runtime-%.tar \
		$(FUNCTION_PACKAGE_SRCS) $(XPKG_BUILD)
	@echo "package: building Function package linux/$* -> $@"
	@mkdir -p $(NO_EXAMPLES)
	@$(XPKG_BUILD) -package-root package -embed-runtime-image-tarball $< -examples-root $(NO_EXAMPLES) -o $@

# The staged file lists: rewritten only when the selection changes (a file added or
# removed), so that a removed XRD or example also rebuilds the package.
$(PACKAGE_DIR)/configuration.files: _package_force
	@mkdir -p $(@D)
	@echo '$(CONFIGURATION_SRCS) $(PACKAGE_EXAMPLES_SRCS)' | cmp -s - $@ 2>/dev/null || \
	  echo '$(CONFIGURATION_SRCS) $(PACKAGE_EXAMPLES_SRCS)' > $@

# Staged from scratch each time, so nothing stale stays in the package root. Files keep
# their repository paths (apis/<kind>/..., <example>/...). The examples are checked for
# private keys as a last guard.
$(CONFIGURATION_XPKG): $(CONFIGURATION_SRCS) $(PACKAGE_EXAMPLES_SRCS) \
		$(PACKAGE_DIR)/configuration.files $(XPKG_BUILD) | package-check-version
	@echo "package: building Configuration package -> $@"
	@rm -rf $(CONFIGURATION_STAGE) $(PACKAGE_EXAMPLES)
	@mkdir -p $(CONFIGURATION_STAGE) $(PACKAGE_EXAMPLES)
	@cp --parents $(CONFIGURATION_SRCS) $(CONFIGURATION_STAGE)/
	@cd examples && cp --parents $(patsubst examples/%,%,$(PACKAGE_EXAMPLES_SRCS)) $(PACKAGE_EXAMPLES)/
	@! grep -rlE -e '-----BEGIN ([A-Z]+ )?PRIVATE KEY-----' $(PACKAGE_EXAMPLES) || \
	  { echo "the files above hold private keys; examples must not" >&2; exit 1; }
	@$(XPKG_BUILD) -package-root $(CONFIGURATION_STAGE) -examples-root $(PACKAGE_EXAMPLES) -o $@

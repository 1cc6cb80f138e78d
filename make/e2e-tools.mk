# make/e2e-tools.mk: binaries of a real control plane for end-to-end tests
# (etcd, kube-apiserver, kube-controller-manager, kube-scheduler, kubectl, a
# cert-manager controller), kwok (fake nodes standing in for kubelets) and
# provider-kubernetes, built from the Go modules in
# test/e2e/tools into a git-ignored $(BIN), and provider-kubernetes' package.
# Include it from the root Makefile, after make/tools.mk or BIN:
#
#   include make/e2e-tools.mk
#
# Like make/tools.mk, every binary is built once per pinned version into a
# versioned file ($(BIN)/etcd-v3.6.16, ...) and exposed through a stable symlink
# ($(BIN)/etcd, ...); a present file is rebuilt only when make would remake it (a module of
# our own whose go.mod changed). The stable paths are
# exported as E2E_* variables for test code. A cold build of all of them takes
# several GiB of Go build cache (docs/performance.md says how long and how much);
# cache the binaries.
#
# The versions below must match the go.mod files in test/e2e/tools; each recipe
# checks that before building. See test/e2e/tools/README.md to bump one.

BIN ?= $(CURDIR)/bin

E2E_ETCD_VERSION         := v3.6.16
E2E_KUBERNETES_VERSION   := v1.35.4
# The newest Kubernetes, from a module of its own (test/e2e/tools/kubernetes-next): with
# E2E_KUBERNETES_NEXT=1, TestCrossplaneNext's control plane runs its kube-apiserver,
# kube-controller-manager and kube-scheduler; TestKCP's and the demo's always run the oldest
# supported above (docs/support.md).
E2E_KUBERNETES_NEXT_VERSION := v1.37.2
E2E_KUBERNETES_NEXT ?=
E2E_CERT_MANAGER_VERSION := v1.21.2
E2E_PROVIDER_KUBERNETES_VERSION := v1.3.1
E2E_KWOK_VERSION         := v0.8.0
E2E_API_SYNCAGENT_VERSION := v0.7.0

# The oldest versions docs/support.md supports, from modules of their own
# (test/e2e/tools/*-oldest): TestCrossplaneNext runs on them, TestKCP on the newest above, so
# each end of each range is tested (docs/support.md).
E2E_CERT_MANAGER_OLDEST_VERSION        := v1.19.5
E2E_PROVIDER_KUBERNETES_OLDEST_VERSION := v1.2.0

E2E_ETCD                    := $(BIN)/etcd
E2E_ETCDCTL                 := $(BIN)/etcdctl
E2E_ETCDUTL                 := $(BIN)/etcdutl
E2E_KUBE_APISERVER          := $(BIN)/kube-apiserver
E2E_KUBE_CONTROLLER_MANAGER := $(BIN)/kube-controller-manager
E2E_KUBE_SCHEDULER          := $(BIN)/kube-scheduler
E2E_KUBECTL                 := $(BIN)/kubectl
E2E_CERT_MANAGER_CONTROLLER := $(BIN)/cert-manager-controller
E2E_PROVIDER_KUBERNETES     := $(BIN)/provider-kubernetes
E2E_KWOK                    := $(BIN)/kwok
E2E_CERT_MANAGER_CONTROLLER_OLDEST := $(BIN)/cert-manager-controller-oldest
E2E_PROVIDER_KUBERNETES_OLDEST     := $(BIN)/provider-kubernetes-oldest
E2E_API_SYNCAGENT           := $(BIN)/api-syncagent
E2E_KUBE_APISERVER_NEXT          := $(BIN)/kube-apiserver-next
E2E_KUBE_CONTROLLER_MANAGER_NEXT := $(BIN)/kube-controller-manager-next
E2E_KUBE_SCHEDULER_NEXT          := $(BIN)/kube-scheduler-next
export E2E_ETCD E2E_ETCDCTL E2E_ETCDUTL E2E_KUBE_APISERVER E2E_KUBE_CONTROLLER_MANAGER E2E_KUBE_SCHEDULER E2E_KUBECTL E2E_CERT_MANAGER_CONTROLLER \
	E2E_PROVIDER_KUBERNETES E2E_KWOK E2E_CERT_MANAGER_CONTROLLER_OLDEST E2E_API_SYNCAGENT \
	E2E_KUBE_APISERVER_NEXT E2E_KUBE_CONTROLLER_MANAGER_NEXT E2E_KUBE_SCHEDULER_NEXT \
	E2E_KUBERNETES_VERSION E2E_KUBERNETES_NEXT_VERSION E2E_KUBERNETES_NEXT

# Every binary above, ordered so that build_tools' side-by-side builds pair different modules
# (two builds of one module would compile the same packages twice).
E2E_TOOLS := $(E2E_KUBE_APISERVER) $(E2E_CERT_MANAGER_CONTROLLER) $(E2E_KUBE_CONTROLLER_MANAGER) $(E2E_PROVIDER_KUBERNETES) \
	$(E2E_KUBE_SCHEDULER) $(E2E_ETCD) $(E2E_KUBECTL) $(E2E_KWOK) $(E2E_ETCDCTL) $(E2E_ETCDUTL) \
	$(E2E_CERT_MANAGER_CONTROLLER_OLDEST) $(E2E_PROVIDER_KUBERNETES_OLDEST)

# The newest Kubernetes' servers: `make e2e` builds them only with E2E_KUBERNETES_NEXT set.
# Not in make test: on a fresh machine they add minutes of compiling that would take it past
# its 65 (docs/support.md says how many, and what would bring them in).
E2E_KUBERNETES_NEXT_TOOLS := $(E2E_KUBE_APISERVER_NEXT) $(E2E_KUBE_CONTROLLER_MANAGER_NEXT) $(E2E_KUBE_SCHEDULER_NEXT)

# Binaries only the runs against real kcp need: not in E2E_TOOLS, so CI never builds them;
# `make e2e` builds them only when KCP_BIN is set.
E2E_REALKCP_TOOLS := $(E2E_API_SYNCAGENT)

E2E_TOOLS_DIR := $(abspath $(dir $(lastword $(MAKEFILE_LIST)))../test/e2e/tools)

# e2e_go: run go inside module $(1) of test/e2e/tools, never through a go.work
# of the caller. Static binaries, like upstream's release builds.
e2e_go = cd $(E2E_TOOLS_DIR)/$(1) && GOWORK=off CGO_ENABLED=0 go

# Version stamps, $(call e2e_k8s_ldflags,<version>). Without them kube-apiserver reports
# v0.0.0-master.
e2e_k8s_ldflags = -s -w \
	-X k8s.io/component-base/version.gitVersion=$(1) \
	-X k8s.io/component-base/version.gitMajor=$(word 1,$(subst ., ,$(1:v%=%))) \
	-X k8s.io/component-base/version.gitMinor=$(word 2,$(subst ., ,$(1:v%=%))) \
	-X k8s.io/component-base/version.gitTreeState=clean
E2E_KUBECTL_LDFLAGS := $(call e2e_k8s_ldflags,$(E2E_KUBERNETES_VERSION)) \
	-X k8s.io/client-go/pkg/version.gitVersion=$(E2E_KUBERNETES_VERSION) \
	-X k8s.io/client-go/pkg/version.gitMajor=$(word 1,$(subst ., ,$(E2E_KUBERNETES_VERSION:v%=%))) \
	-X k8s.io/client-go/pkg/version.gitMinor=$(word 2,$(subst ., ,$(E2E_KUBERNETES_VERSION:v%=%))) \
	-X k8s.io/client-go/pkg/version.gitTreeState=clean
# $(call e2e_cert_manager_ldflags,<version>), $(call e2e_provider_kubernetes_ldflags,<version>)
e2e_cert_manager_ldflags = -s -w -X github.com/cert-manager/cert-manager/pkg/util.AppVersion=$(1)
e2e_provider_kubernetes_ldflags = -s -w -X github.com/crossplane-contrib/provider-kubernetes/internal/version.Version=$(1)
E2E_KWOK_LDFLAGS := -s -w -X sigs.k8s.io/kwok/pkg/consts.Version=$(E2E_KWOK_VERSION)
E2E_API_SYNCAGENT_LDFLAGS := -s -w -X github.com/kcp-dev/api-syncagent/internal/version.gitVersion=$(E2E_API_SYNCAGENT_VERSION)

# $(call e2e_module_srcs,<module dir>): what a binary built from our own code depends on.
e2e_module_srcs = $(filter-out %_test.go,$(wildcard $(E2E_TOOLS_DIR)/$(1)/*.go $(E2E_TOOLS_DIR)/$(1)/*/*.go $(E2E_TOOLS_DIR)/$(1)/*/*/*.go)) \
	$(E2E_TOOLS_DIR)/$(1)/go.mod $(E2E_TOOLS_DIR)/$(1)/go.sum

# e2e_check_version: fail unless test/e2e/tools/$(1)/go.mod pins module $(2) at $(3).
define e2e_check_version
	@v=$$($(call e2e_go,$(1)) list -m -f '{{.Version}}' $(2) 2>/dev/null) && test "$$v" = "$(3)" || \
	  { echo "make/e2e-tools.mk wants $(2) $(3) but test/e2e/tools/$(1)/go.mod has $$v" >&2; exit 1; }
endef

# e2e_build: $(1) = module dir, $(2) = ldflags, $(3) = package, $(4) = extra
# build flags, $(5) = what progress calls it. Writes $@ atomically.
define e2e_build
	@mkdir -p $(BIN)
	@$(PROGRESS) "$(5)" '$(call e2e_go,$(1)) build -trimpath $(4) -ldflags "$(2)" -o $@.tmp $(3)' && mv $@.tmp $@
endef

# e2e_link: $(1) = stable symlink path, $(2) = versioned file name in $(BIN).
# make stats the symlink's target, so an up-to-date link pointing at another
# version would look current; force a relink when it points elsewhere.
define e2e_link
$(1): $(BIN)/$(2)
	@ln -sfn $(2) $(1)
ifneq ($$(shell readlink $(1) 2>/dev/null),$(2))
$(1): _e2e_tools_force
endif
endef

.PHONY: e2e-tools _e2e_tools_force
## e2e-tools: build the real-control-plane binaries for end-to-end tests into bin/.
e2e-tools:
	$(call build_tools,$(E2E_TOOLS))
_e2e_tools_force:

$(BIN)/etcd-$(E2E_ETCD_VERSION):
	$(call e2e_check_version,etcd,go.etcd.io/etcd/server/v3,$(E2E_ETCD_VERSION))
	$(call e2e_build,etcd,-s -w,go.etcd.io/etcd/server/v3,,etcd $(E2E_ETCD_VERSION))

$(BIN)/etcdctl-$(E2E_ETCD_VERSION):
	$(call e2e_check_version,etcd,go.etcd.io/etcd/etcdctl/v3,$(E2E_ETCD_VERSION))
	$(call e2e_build,etcd,-s -w,go.etcd.io/etcd/etcdctl/v3,,etcdctl $(E2E_ETCD_VERSION))

# etcdutl restores snapshots (etcdctl v3.6 no longer can): the e2e's Backup scenario
# restores what the backup CronJob's commands saved.
$(BIN)/etcdutl-$(E2E_ETCD_VERSION):
	$(call e2e_check_version,etcd,go.etcd.io/etcd/etcdutl/v3,$(E2E_ETCD_VERSION))
	$(call e2e_build,etcd,-s -w,go.etcd.io/etcd/etcdutl/v3,,etcdutl $(E2E_ETCD_VERSION))

# kube-apiserver, kube-controller-manager and kube-scheduler of one Kubernetes version:
# $(1) = module dir, $(2) = version. kube-scheduler shares all but a few packages with the
# other two: built after them, it links in seconds.
define e2e_kubernetes_rules
$(BIN)/kube-apiserver-$(2):
	$$(call e2e_check_version,$(1),k8s.io/kubernetes,$(2))
	$$(call e2e_build,$(1),$(call e2e_k8s_ldflags,$(2)),k8s.io/kubernetes/cmd/kube-apiserver,,kube-apiserver $(2))

$(BIN)/kube-controller-manager-$(2):
	$$(call e2e_check_version,$(1),k8s.io/kubernetes,$(2))
	$$(call e2e_build,$(1),$(call e2e_k8s_ldflags,$(2)),k8s.io/kubernetes/cmd/kube-controller-manager,,kube-controller-manager $(2))

$(BIN)/kube-scheduler-$(2):
	$$(call e2e_check_version,$(1),k8s.io/kubernetes,$(2))
	$$(call e2e_build,$(1),$(call e2e_k8s_ldflags,$(2)),k8s.io/kubernetes/cmd/kube-scheduler,,kube-scheduler $(2))
endef
$(eval $(call e2e_kubernetes_rules,kubernetes,$(E2E_KUBERNETES_VERSION)))
$(eval $(call e2e_kubernetes_rules,kubernetes-next,$(E2E_KUBERNETES_NEXT_VERSION)))

# kubectl of the oldest version only: both control planes' clients (a client two minor
# versions older than the API server, as a platform's CI often has).
$(BIN)/kubectl-$(E2E_KUBERNETES_VERSION):
	$(call e2e_check_version,kubernetes,k8s.io/kubernetes,$(E2E_KUBERNETES_VERSION))
	$(call e2e_build,kubernetes,$(E2E_KUBECTL_LDFLAGS),k8s.io/kubernetes/cmd/kubectl,,kubectl $(E2E_KUBERNETES_VERSION))

# The cert-manager controller main is our own code (cert-manager/main.go; the oldest
# module links the same file): rebuild it when its sources or its module change.
# $(1) = module dir, $(2) = cert-manager version.
define e2e_cert_manager_rule
$(BIN)/cert-manager-controller-$(2): $(call e2e_module_srcs,$(1))
	$$(call e2e_check_version,$(1),github.com/cert-manager/cert-manager,$(2))
	$$(call e2e_build,$(1),$(call e2e_cert_manager_ldflags,$(2)),.,-buildvcs=false,cert-manager-controller (cert-manager $(2)))
endef
$(eval $(call e2e_cert_manager_rule,cert-manager,$(E2E_CERT_MANAGER_VERSION)))
$(eval $(call e2e_cert_manager_rule,cert-manager-oldest,$(E2E_CERT_MANAGER_OLDEST_VERSION)))

# provider-kubernetes' own main (cmd/provider), from the published module: the e2e packages
# it as a Provider and runs it as the package runtime would (see test/e2e/stack). From v1.3
# it links our stand-in for the Nebius SDK the proxy does not serve
# (provider-kubernetes/nebius-gosdk-standin): rebuild it when the module changes.
# $(1) = module dir, $(2) = provider-kubernetes version.
define e2e_provider_kubernetes_rule
$(BIN)/provider-kubernetes-$(2): $(call e2e_module_srcs,$(1))
	$$(call e2e_check_version,$(1),github.com/crossplane-contrib/provider-kubernetes,$(2))
	$$(call e2e_build,$(1),$(call e2e_provider_kubernetes_ldflags,$(2)),github.com/crossplane-contrib/provider-kubernetes/cmd/provider,,provider-kubernetes $(2))
endef
$(eval $(call e2e_provider_kubernetes_rule,provider-kubernetes,$(E2E_PROVIDER_KUBERNETES_VERSION)))
$(eval $(call e2e_provider_kubernetes_rule,provider-kubernetes-oldest,$(E2E_PROVIDER_KUBERNETES_OLDEST_VERSION)))

# kwok's controller (cmd/kwok): fake nodes and pods for the e2e, in place of kubelets.
$(BIN)/kwok-$(E2E_KWOK_VERSION):
	$(call e2e_check_version,kwok,sigs.k8s.io/kwok,$(E2E_KWOK_VERSION))
	$(call e2e_build,kwok,$(E2E_KWOK_LDFLAGS),sigs.k8s.io/kwok/cmd/kwok,,kwok $(E2E_KWOK_VERSION))

# kcp's api-syncagent (cmd/api-syncagent), for the real-kcp runs (E2E_REALKCP_TOOLS). It links our
# stand-in for virtual-workspace-framework, which the proxy does not serve
# (api-syncagent/virtual-workspace-framework-standin): rebuild it when the module changes.
$(BIN)/api-syncagent-$(E2E_API_SYNCAGENT_VERSION): $(call e2e_module_srcs,api-syncagent)
	$(call e2e_check_version,api-syncagent,github.com/kcp-dev/api-syncagent,$(E2E_API_SYNCAGENT_VERSION))
	$(call e2e_build,api-syncagent,$(E2E_API_SYNCAGENT_LDFLAGS),github.com/kcp-dev/api-syncagent/cmd/api-syncagent,,api-syncagent $(E2E_API_SYNCAGENT_VERSION))

# provider-kubernetes' package, for the host's architecture only (the package runtime runs it
# here): the module's package/crossplane.yaml and package/crds/*.yaml, and a runtime image
# holding the binary at /provider, built like the function's (runtime-image, xpkgbuild). Needs
# $(RUNTIME_IMAGE) and $(XPKG_BUILD) from make/tools.mk.
E2E_ARCH := $(shell go env GOARCH)
E2E_PACKAGE_DIR := $(or $(OUTPUT),$(CURDIR)/_output)/e2e-packages
# $(call e2e_provider_kubernetes_xpkg,<version>) is where that version's package is built.
e2e_provider_kubernetes_xpkg = $(E2E_PACKAGE_DIR)/provider-kubernetes-$(1)-$(E2E_ARCH).xpkg
E2E_PROVIDER_KUBERNETES_XPKG := $(call e2e_provider_kubernetes_xpkg,$(E2E_PROVIDER_KUBERNETES_VERSION))
E2E_PROVIDER_KUBERNETES_OLDEST_XPKG := $(call e2e_provider_kubernetes_xpkg,$(E2E_PROVIDER_KUBERNETES_OLDEST_VERSION))
export E2E_PROVIDER_KUBERNETES_XPKG E2E_PROVIDER_KUBERNETES_OLDEST_XPKG

.PHONY: e2e-provider-kubernetes
## e2e-provider-kubernetes: build provider-kubernetes' packages (newest and oldest) for the end-to-end tests.
e2e-provider-kubernetes: $(E2E_PROVIDER_KUBERNETES_XPKG) $(E2E_PROVIDER_KUBERNETES_OLDEST_XPKG)

# $(1) = module dir, $(2) = provider-kubernetes version.
define e2e_provider_kubernetes_package_rule
$(E2E_PACKAGE_DIR)/provider-kubernetes-$(2)-runtime-$(E2E_ARCH).tar: $(BIN)/provider-kubernetes-$(2) $(RUNTIME_IMAGE)
	@mkdir -p $$(@D)
	@$(RUNTIME_IMAGE) -binary $$< -arch $(E2E_ARCH) -entrypoint /provider -o $$@

$(call e2e_provider_kubernetes_xpkg,$(2)): $(E2E_PACKAGE_DIR)/provider-kubernetes-$(2)-runtime-$(E2E_ARCH).tar $(XPKG_BUILD)
	@echo "package: building provider-kubernetes $(2) linux/$(E2E_ARCH) -> $$@"
	@dir=$$$$($(call e2e_go,$(1)) list -m -f '{{.Dir}}' github.com/crossplane-contrib/provider-kubernetes) && \
	  test -f "$$$$dir/package/crossplane.yaml" || { echo "provider-kubernetes module not in the module cache: $$$$dir" >&2; exit 1; }; \
	  root=$(E2E_PACKAGE_DIR)/provider-kubernetes-$(2) && rm -rf $$$$root $$$$root-no-examples && \
	  mkdir -p $$$$root/crds $$$$root-no-examples && \
	  cp "$$$$dir/package/crossplane.yaml" $$$$root/ && \
	  cp "$$$$dir"/package/crds/*.yaml $$$$root/crds/ && \
	  $(XPKG_BUILD) -package-root $$$$root \
	    -embed-runtime-image-tarball $$< -examples-root $$$$root-no-examples -o $$@
endef
$(eval $(call e2e_provider_kubernetes_package_rule,provider-kubernetes,$(E2E_PROVIDER_KUBERNETES_VERSION)))
$(eval $(call e2e_provider_kubernetes_package_rule,provider-kubernetes-oldest,$(E2E_PROVIDER_KUBERNETES_OLDEST_VERSION)))

# The e2e's demo composition function (test/e2e/demofunction, a test stand-in): the function of
# the Database XRD the real-kcp runs publish through a PublishedAPI, packaged as the function is
# (runtime-image, xpkgbuild) for the host's architecture. `make e2e` builds it only when KCP_BIN
# is set (E2E_REALKCP_PACKAGES), CI never; make exports its path as E2E_DEMO_FUNCTION_XPKG.
E2E_DEMO_FUNCTION_DIR := $(abspath $(E2E_TOOLS_DIR)/../demofunction)
E2E_DEMO_FUNCTION_BIN := $(E2E_PACKAGE_DIR)/function-e2e-demo-$(E2E_ARCH)
E2E_DEMO_FUNCTION_XPKG := $(E2E_PACKAGE_DIR)/function-e2e-demo-$(E2E_ARCH).xpkg
E2E_REALKCP_PACKAGES := $(E2E_DEMO_FUNCTION_XPKG)
export E2E_DEMO_FUNCTION_XPKG

$(E2E_DEMO_FUNCTION_BIN): $(filter-out %_test.go,$(wildcard $(E2E_DEMO_FUNCTION_DIR)/*.go)) $(CURDIR)/go.mod $(CURDIR)/go.sum
	@mkdir -p $(@D)
	@CGO_ENABLED=0 GOOS=linux GOARCH=$(E2E_ARCH) go build -trimpath -ldflags "-s -w" -o $@.tmp $(E2E_DEMO_FUNCTION_DIR) && mv $@.tmp $@

$(E2E_DEMO_FUNCTION_BIN)-runtime.tar: $(E2E_DEMO_FUNCTION_BIN) $(RUNTIME_IMAGE)
	@$(RUNTIME_IMAGE) -binary $< -arch $(E2E_ARCH) -o $@

$(E2E_DEMO_FUNCTION_XPKG): $(E2E_DEMO_FUNCTION_BIN)-runtime.tar $(E2E_DEMO_FUNCTION_DIR)/package/crossplane.yaml $(XPKG_BUILD)
	@echo "package: building the e2e's demo function linux/$(E2E_ARCH) -> $@"
	@mkdir -p $(E2E_PACKAGE_DIR)/function-e2e-demo-no-examples
	@$(XPKG_BUILD) -package-root $(E2E_DEMO_FUNCTION_DIR)/package -embed-runtime-image-tarball $< \
	  -examples-root $(E2E_PACKAGE_DIR)/function-e2e-demo-no-examples -o $@

$(eval $(call e2e_link,$(E2E_ETCD),etcd-$(E2E_ETCD_VERSION)))
$(eval $(call e2e_link,$(E2E_ETCDCTL),etcdctl-$(E2E_ETCD_VERSION)))
$(eval $(call e2e_link,$(E2E_ETCDUTL),etcdutl-$(E2E_ETCD_VERSION)))
$(eval $(call e2e_link,$(E2E_KUBE_APISERVER),kube-apiserver-$(E2E_KUBERNETES_VERSION)))
$(eval $(call e2e_link,$(E2E_KUBE_CONTROLLER_MANAGER),kube-controller-manager-$(E2E_KUBERNETES_VERSION)))
$(eval $(call e2e_link,$(E2E_KUBE_SCHEDULER),kube-scheduler-$(E2E_KUBERNETES_VERSION)))
$(eval $(call e2e_link,$(E2E_KUBECTL),kubectl-$(E2E_KUBERNETES_VERSION)))
$(eval $(call e2e_link,$(E2E_KUBE_APISERVER_NEXT),kube-apiserver-$(E2E_KUBERNETES_NEXT_VERSION)))
$(eval $(call e2e_link,$(E2E_KUBE_CONTROLLER_MANAGER_NEXT),kube-controller-manager-$(E2E_KUBERNETES_NEXT_VERSION)))
$(eval $(call e2e_link,$(E2E_KUBE_SCHEDULER_NEXT),kube-scheduler-$(E2E_KUBERNETES_NEXT_VERSION)))
$(eval $(call e2e_link,$(E2E_CERT_MANAGER_CONTROLLER),cert-manager-controller-$(E2E_CERT_MANAGER_VERSION)))
$(eval $(call e2e_link,$(E2E_PROVIDER_KUBERNETES),provider-kubernetes-$(E2E_PROVIDER_KUBERNETES_VERSION)))
$(eval $(call e2e_link,$(E2E_KWOK),kwok-$(E2E_KWOK_VERSION)))
$(eval $(call e2e_link,$(E2E_CERT_MANAGER_CONTROLLER_OLDEST),cert-manager-controller-$(E2E_CERT_MANAGER_OLDEST_VERSION)))
$(eval $(call e2e_link,$(E2E_PROVIDER_KUBERNETES_OLDEST),provider-kubernetes-$(E2E_PROVIDER_KUBERNETES_OLDEST_VERSION)))
$(eval $(call e2e_link,$(E2E_API_SYNCAGENT),api-syncagent-$(E2E_API_SYNCAGENT_VERSION)))

// A stand-in for github.com/kcp-dev/virtual-workspace-framework, of which api-syncagent
// v0.7.0 imports one function: the Go module proxy refuses every version of the module
// (403, "not available"). See crdpuller/crdpuller.go.
module github.com/kcp-dev/virtual-workspace-framework

go 1.26.0

require (
	k8s.io/apiextensions-apiserver v0.36.0
	k8s.io/kube-openapi v0.0.0-20260414162039-ec9c827d403f
)

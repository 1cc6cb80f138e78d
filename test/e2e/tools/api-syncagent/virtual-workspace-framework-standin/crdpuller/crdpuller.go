// Package crdpuller is a stand-in for kcp's virtual-workspace-framework/crdpuller, not that
// package.
//
// api-syncagent v0.7.0 calls one function of it, Convert, and only when the kind a
// PublishedResource names has no CRD in the service cluster (a built-in kind such as
// ConfigMap): it then builds the schema from the cluster's OpenAPI document. The Go module
// proxy refuses github.com/kcp-dev/virtual-workspace-framework, so ../../go.mod replaces it with
// this module. Kinds backed by a CRD, which the agent copies from the CRD itself, are
// unaffected; for a built-in kind Convert fails and says why, and the agent reports that on
// the PublishedResource instead of publishing a schema.
package crdpuller

import (
	"errors"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"k8s.io/kube-openapi/pkg/util/proto"
)

// ErrStandIn is what Convert returns.
var ErrStandIn = errors.New("publishing a kind that has no CRD (a built-in kind) is not available in this e2e build of " +
	"api-syncagent: github.com/kcp-dev/virtual-workspace-framework is a stand-in " +
	"(test/e2e/tools/api-syncagent/virtual-workspace-framework-standin)")

// Convert would turn an OpenAPI v2 schema into a CRD's structural schema; it converts nothing.
func Convert(_ proto.Schema, _ *apiextensionsv1.JSONSchemaProps) []error {
	return []error{ErrStandIn}
}

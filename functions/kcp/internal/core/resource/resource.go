// Package resource holds what the composers share with Crossplane's RunFunction wire format:
// composition resource names, readiness and unstructured objects.
//
// It stands in for function-sdk-go's resource, request and response packages, which import
// controller-runtime and through it every Kubernetes API group: the function needs none of
// them, and they cost 13 MiB of resident memory and 25 MB of binary (docs/performance.md).
// The function still serves with function-sdk-go and speaks its protobuf types.
package resource

import "k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

// Name is the composition resource name of a composed resource: the stable key Crossplane
// tracks it by across reconciles.
type Name string

// AnnotationName is the annotation by which Crossplane knows a composed resource's Name.
const AnnotationName = "crossplane.io/composition-resource-name"

// Ready is what the function says about a desired resource's readiness.
type Ready int

// Readiness values.
const (
	// ReadyUnspecified leaves readiness to Crossplane.
	ReadyUnspecified Ready = iota
	// ReadyTrue marks the resource ready.
	ReadyTrue
	// ReadyFalse marks the resource not ready.
	ReadyFalse
)

// Unstructured is a Kubernetes object as JSON-like maps.
type Unstructured = unstructured.Unstructured

// NewUnstructured returns an empty object.
func NewUnstructured() *Unstructured {
	return &Unstructured{Object: map[string]any{}}
}

// DesiredComposed is a desired composed resource as unstructured content, with its readiness.
type DesiredComposed struct {
	Resource *Unstructured
	Ready    Ready
}

func (r Ready) String() string {
	switch r {
	case ReadyTrue:
		return "True"
	case ReadyFalse:
		return "False"
	}
	return "Unspecified"
}

// Kinds of object a pod can mount.
const (
	KindSecret    = "Secret"
	KindConfigMap = "ConfigMap"
)

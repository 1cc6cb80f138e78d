// Package v1alpha1 holds the composite resource (XR) types of configuration-kcp.
//
// The specs mirror kcp-operator's operator.kcp.io/v1alpha1 kinds field for field (same JSON
// names, types, enums and validation), so an existing kcp-operator manifest works after
// changing its apiVersion to kcp.crossplane.io/v1alpha1. These Go types are the single source
// of truth for the XRD schemas: `make generate` turns them into apis/<plural>/definition.yaml.
//
// +groupName=kcp.crossplane.io
// +versionName=v1alpha1
package v1alpha1

// Group and Version of every XR in this package.
const (
	Group   = "kcp.crossplane.io"
	Version = "v1alpha1"
)

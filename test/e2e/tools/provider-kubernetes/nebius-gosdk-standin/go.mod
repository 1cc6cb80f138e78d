// A stand-in for github.com/nebius/gosdk, which provider-kubernetes v1.3.1 imports for
// Nebius IAM identities: the Go module proxy refuses the v0.2.28 it requires. See gosdk.go.
module github.com/nebius/gosdk

go 1.26.0

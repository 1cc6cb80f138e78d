package names

import "strings"

// Reference is the reference Secret a RootShard, FrontProxy or CacheServer named name
// publishes: its URLs and CA certificates, no key (docs/design/many-teams-many-clusters.md,
// story 3). One name for the three kinds: a consumer names the Secret, not the kind.
func Reference(name string) string { return name + "-reference" }

// TenantRequest is the name of the TenantRequest a team's XR of a kind and name composes in
// its namespace: kinds hold no dash, so no two team XRs' requests share a name.
func TenantRequest(kind, name string) string { return strings.ToLower(kind) + "-" + name }

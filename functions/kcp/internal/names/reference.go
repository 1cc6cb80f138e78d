package names

// Reference is the reference Secret a RootShard, FrontProxy or CacheServer named name
// publishes: its URLs and CA certificates, no key (docs/design/many-teams-many-clusters.md,
// story 3). One name for the three kinds: a consumer names the Secret, not the kind.
func Reference(name string) string { return name + "-reference" }

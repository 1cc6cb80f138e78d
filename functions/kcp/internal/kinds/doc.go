// Package kinds groups one package per XR kind, side by side: each decodes nothing and
// serves nothing, it validates its typed XR, warns, and composes it from the observed state.
// fn.go's table of kinds holds one row per package here, and no kind imports another: what
// two kinds share goes into names, check, parts or compose. A kind that composes other kinds'
// XRs (KcpInstallation) builds them from the API types and names, and has them checked by
// the table. Adding a kind is a package here and a row in that table. Its packages:
//
//   - rootshard composes a RootShard: its PKI, the root shard's Deployment and Service, its
//     internal proxy
//   - shard composes a Shard registered with its root shard
//   - cacheserver composes a CacheServer and its own root CA
//   - frontproxy composes a FrontProxy, the entry point of an installation
//   - virtualworkspace composes a virtual workspace server run outside its shard
//   - kubeconfig composes a client certificate and the kubeconfig Secret that embeds it
//   - certificateset composes the Issuers and Certificates a RootShard or Shard composes
//     through it
//   - kcpinstallation composes a whole kcp as XRs of the kinds above
//   - claimedkcpinstallation composes the KcpInstallation behind a KcpInstallationClaim
//   - tenant composes a shared installation's grant to a team's namespace
//   - tenantrequest composes nothing: it is what a team's XR asks of its Tenant
//   - workspace composes a kcp workspace and the bindings in it, through provider-kubernetes
//   - publishedapi composes an APIExport in kcp and the api-syncagent serving it from a
//     cluster
//
// This directory holds only this comment; shape_test.go in functions/kcp holds the layers,
// and test/style's TestGroupDocsNameEverySubpackage holds this list to the directories here.
package kinds

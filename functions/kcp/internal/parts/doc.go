// Package parts groups the renderers of kcp's parts: from a spec to the typed objects
// kcp-operator v0.9.0 would create, flag for flag and mount for mount. A renderer reads no
// observed state and decides no readiness: when an object may be composed is the business of
// compose, above it. Its packages:
//
//   - pki renders cert-manager Certificates and Issuers and merges certificate templates
//   - workload renders Deployments and Services: container shape, probes, flags, mounts,
//     rollout annotations and the user's templates
//   - kcpserver renders the kcp server of a root shard or shard
//   - proxy renders kcp-front-proxy: a FrontProxy and a root shard's internal proxy
//   - vwserver renders a virtual workspace server run outside its shard
//   - cache renders kcp's cache server: its flags, mounts, container, Deployment and Service
//   - etcd renders a KcpInstallation's managed etcd cluster: its StatefulSet and flags,
//     Services, its own CAs and the backup CronJob
//   - kubeconfigfile writes the kubeconfig file format
//   - monitoring renders prometheus-operator PodMonitors and their client certificates
//   - reference renders the <name>-reference Secret a RootShard, FrontProxy or CacheServer
//     publishes: URLs and CA certificates, never a key
//   - inkcp renders provider-kubernetes ProviderConfigs and Objects that act inside kcp or in
//     another cluster
//   - syncagent renders kcp's api-syncagent: its flags, its RBAC in kcp and in the service
//     cluster, PublishedResources and permission claims
//   - encryption renders kcp's EncryptionConfiguration and the Job that rewrites what it
//     encrypts
//
// This directory holds only this comment; shape_test.go in functions/kcp holds the layers,
// and test/style's TestGroupDocsNameEverySubpackage holds this list to the directories here.
package parts

// Package parts groups the renderers of kcp's parts: from a spec to the typed objects
// kcp-operator v0.9.0 would create, flag for flag and mount for mount. pki renders
// cert-manager Certificates and Issuers, workload Deployments and Services, kcpserver the kcp
// server of a root shard or shard, proxy kcp-front-proxy, vwserver a virtual workspace server
// run outside its shard, kubeconfigfile the kubeconfig file format. A renderer reads no observed state and decides no readiness: when an object may be
// composed is the business of compose, above it.
//
// This directory holds only this comment; shape_test.go in functions/kcp holds the layers.
package parts

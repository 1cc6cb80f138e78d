// Package scenarios installs configuration-kcp's packages on a real control plane (see
// package stack: real etcd, kube-apiserver, kube-controller-manager, cert-manager and
// Crossplane, in a private network namespace) and plays what platform engineers do with
// them: install a single-shard and a sharded kcp from the examples, renew certificates, make
// mistakes, delete, migrate an installation from kcp-operator. Each scenario asserts outcomes on the objects the cluster ends up with.
//
// Kubernetes decides where pods go and how workloads roll out: kube-scheduler and the
// deployment, replicaset, statefulset and disruption controllers run. Four parts are
// stand-ins, named as such wherever they act: kwok fake nodes stand in for kubelets (two
// zones; kwok marks the pods bound to them running and ready, no container runs); the harness plays
// Crossplane's package runtime (see package stack); no kcp-operator runs, so the Migrate
// scenario creates what it leaves behind (KCPOperatorStandIn, see migrate_test.go); and no kcp
// runs, so provider-kubernetes acts on a kcp stand-in (KCPStandIn, see package kcpstandin and
// standin_test.go). With KCP_BIN set to a directory holding
// kcp and kcp-front-proxy binaries, TestKCP/Basic/RealKCP also runs the composed containers
// of the root shard and the front-proxy as real processes (see realkcp_test.go).
//
// Run with `make e2e`, which builds the packages and the binaries and exports their paths.
//
// What each scenario needs, where it runs and in which lane is plan.go's Plan, which
// test/e2e/README.md's table shows (test/style holds it to Plan).
package scenarios

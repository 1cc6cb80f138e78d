package kcpinstallation

import (
	"strings"

	"github.com/configuration-kcp/configuration-kcp/apis/v1alpha1"
	"github.com/configuration-kcp/configuration-kcp/functions/kcp/internal/names"
	"github.com/configuration-kcp/configuration-kcp/functions/kcp/internal/parts/etcd"
)

// etcdStore returns where each shard stores its data (the root shard is ""), and the managed
// cluster if there is one (none with an external or kcp's embedded etcd). Shards that share the installation's etcd get a key prefix of
// their own: two kcp shards under one prefix would overwrite each other's data.
func etcdStore(inst *v1alpha1.KcpInstallation) (func(shard string) v1alpha1.EtcdConfig, *etcd.Cluster) {
	e := inst.Spec.Etcd
	if e != nil && e.Embedded {
		// kcp's embedded etcd in the root shard's pod; shards are refused (checkDevelopment).
		return func(string) v1alpha1.EtcdConfig {
			return v1alpha1.EtcdConfig{Endpoints: []string{v1alpha1.EmbeddedEtcdEndpoint}}
		}, nil
	}
	if e != nil && e.External != nil {
		ext := *e.External
		return func(shard string) v1alpha1.EtcdConfig {
			out := ext
			if shard != "" {
				out.Prefix = ShardPrefix(ext.Prefix, shard)
			}
			return out
		}, nil
	}
	c := &etcd.Cluster{Names: names.Etcd{Installation: inst.GetName()}, Namespace: inst.GetNamespace(), ClusterDomain: inst.Spec.ClusterDomain}
	c.Scheduling, c.Profiling = inst.Spec.Scheduling, inst.Spec.Profiling
	if e != nil && e.Managed != nil {
		c.Spec = *e.Managed
		c.Scheduling = e.Managed.Scheduling.Over(inst.Spec.Scheduling)
		c.Profiling = e.Managed.Profiling.Over(inst.Spec.Profiling)
	}
	return func(shard string) v1alpha1.EtcdConfig {
		if shard == "" {
			return c.Client("")
		}
		return c.Client(ShardPrefix("", shard))
	}, c
}

// CachePrefix is the etcd key prefix of a cache server that shares the installation's etcd,
// beside the root shard's keys as a shard's are: /cache, or /kcp-cache beside a root prefix
// /kcp. "cache" is a reserved shard name, so no shard's prefix meets it.
func CachePrefix(rootPrefix string) string {
	root := strings.TrimSuffix(rootPrefix, "/")
	if root == "" {
		return "/cache"
	}
	return root + "-cache"
}

// ShardPrefix is the etcd key prefix of a shard that shares the installation's etcd: beside
// the root shard's keys, never inside them. kcp writes under <prefix>/, so /shards/<name> is
// beside the default /registry, and /kcp-shards/<name> beside a root prefix /kcp.
func ShardPrefix(rootPrefix, shard string) string {
	root := strings.TrimSuffix(rootPrefix, "/")
	if root == "" {
		return "/shards/" + shard
	}
	return root + "-shards/" + shard
}

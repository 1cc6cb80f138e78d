package kcpinstallation

import (
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/configuration-kcp/configuration-kcp/apis/v1alpha1"
	"github.com/configuration-kcp/configuration-kcp/functions/kcp/internal/core/observed"
	"github.com/configuration-kcp/configuration-kcp/functions/kcp/internal/names"
)

// checkDevelopment refuses what a development installation (spec.etcd.embedded: kcp's own
// etcd in the root shard's pod) cannot run, naming the installation's fields before the
// children's own checks would name theirs: shards (each needs an etcd to share the root
// shard's data through), a second root shard replica (a second, empty kcp), a cache server
// that would store in the installation's etcd. It also refuses turning an installation that
// runs a managed etcd into a development one: the managed etcd, and everything kcp stored in
// it, would be deleted.
func checkDevelopment(inst *v1alpha1.KcpInstallation, st *observed.State) field.ErrorList {
	s := inst.Spec
	if s.Etcd == nil || !s.Etcd.Embedded {
		return nil
	}
	spec := field.NewPath("spec")
	const fix = "; or store kcp's data in an etcd cluster (spec.etcd.managed or spec.etcd.external) instead of spec.etcd.embedded"
	var errs field.ErrorList
	if st.Exists(keyEtcd) {
		errs = append(errs, field.Forbidden(spec.Child("etcd", "embedded"),
			"this installation stores kcp's data in its managed etcd (StatefulSet "+names.Etcd{Installation: inst.GetName()}.Name()+"): a development installation would delete it and everything kcp stored in it; remove embedded, or create a new KcpInstallation for development"))
	}
	if len(s.Shards) > 0 {
		errs = append(errs, field.Forbidden(spec.Child("shards"), "a development installation (spec.etcd.embedded) runs one root shard alone: remove the shards"+fix))
	}
	if r := s.RootShard; r != nil && r.Replicas != nil && *r.Replicas > 1 {
		errs = append(errs, field.Invalid(spec.Child("rootShard", "replicas"), *r.Replicas,
			"kcp's embedded etcd lives in the root shard's pod, so a second replica would be a second kcp with data of its own: remove replicas or set it to 1"+fix))
	}
	if c := s.CacheServer; c != nil && c.Etcd == nil && !c.Embedded {
		errs = append(errs, field.Required(spec.Child("cacheServer", "embedded"),
			"a development installation has no etcd for the cache server to store in: set cacheServer.embedded: true, give it an etcd of its own (cacheServer.etcd), or remove cacheServer (the root shard then serves as the cache)"))
	}
	if e := s.Etcd; e.External != nil || e.Managed != nil {
		// The XRD's rule says the same; for renders and API servers that skipped it.
		errs = append(errs, field.Forbidden(spec.Child("etcd", "embedded"), "set one of etcd.managed, etcd.external and etcd.embedded"))
	}
	return errs
}

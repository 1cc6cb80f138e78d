package kcpinstallation

import (
	"fmt"

	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/configuration-kcp/configuration-kcp/apis/v1alpha1"
	"github.com/configuration-kcp/configuration-kcp/functions/kcp/internal/compose/required"
	"github.com/configuration-kcp/configuration-kcp/functions/kcp/internal/core/observed"
	"github.com/configuration-kcp/configuration-kcp/functions/kcp/internal/names"
	"github.com/configuration-kcp/configuration-kcp/functions/kcp/internal/parts/etcd"
)

// A namer is one child XR of an installation, or its managed etcd, with every name it may
// give an object (names.*.Composed). Names derive from names: installation a with shard
// b-server composes Certificate a-b-server-server, and installation a-b composes
// a-b-server for its root shard; the names of the XRs alone do not show it.
type namer struct {
	what  string      // "Shard team-a-b", for messages
	field *field.Path // the installation field that makes it
	names []string
}

// namers lists what an installation composes, from its spec alone, so a neighbour's namers
// are known from its spec too.
func namers(inst *v1alpha1.KcpInstallation) []namer {
	s := inst.Spec
	n := names.Installation(inst.GetName())
	root := names.RootShard(n.RootShard())
	shards := make([]string, 0, len(s.Shards))
	for _, sh := range s.Shards {
		shards = append(shards, n.Shard(sh.Name))
	}
	out := []namer{{what: "RootShard " + string(root), field: field.NewPath("metadata", "name"), names: root.Composed(shards...)}}
	if r := s.RootShard; r != nil && r.VirtualWorkspace != nil {
		vw := n.VirtualWorkspace("")
		out = append(out, namer{what: "VirtualWorkspace " + vw, field: field.NewPath("spec", "rootShard", "virtualWorkspace"), names: names.VirtualWorkspace(vw).Composed()})
	}
	if s.CacheServer != nil {
		cs := n.CacheServer()
		out = append(out, namer{what: "CacheServer " + cs, field: field.NewPath("spec", "cacheServer"), names: names.CacheServer(cs).Composed()})
	}
	if s.Etcd.IsManaged() {
		e := names.Etcd{Installation: inst.GetName()}
		var m *v1alpha1.ManagedEtcd
		if s.Etcd != nil {
			m = s.Etcd.Managed
		}
		out = append(out, namer{what: "etcd " + e.Name(), field: field.NewPath("spec", "etcd"), names: etcdNames(e, m)})
	}
	for i, sh := range s.Shards {
		name := n.Shard(sh.Name)
		out = append(out, namer{what: "Shard " + name, field: field.NewPath("spec", "shards").Index(i).Child("name"), names: names.Shard(name).Composed()})
		if sh.VirtualWorkspace != nil {
			vw := n.VirtualWorkspace(sh.Name)
			out = append(out, namer{what: "VirtualWorkspace " + vw, field: field.NewPath("spec", "shards").Index(i).Child("virtualWorkspace"), names: names.VirtualWorkspace(vw).Composed()})
		}
		if sh.ManagedEtcd != nil {
			e := names.Etcd{Installation: inst.GetName(), Shard: sh.Name}
			out = append(out, namer{what: "etcd " + e.Name(), field: field.NewPath("spec", "shards").Index(i).Child("managedEtcd"), names: etcdNames(e, sh.ManagedEtcd)})
		}
	}
	fps := s.FrontProxies
	if len(fps) == 0 {
		fps = []v1alpha1.InstallationFrontProxy{{Name: DefaultFrontProxyName}}
	}
	for i, fp := range fps {
		name := n.FrontProxy(fp.Name)
		composed := names.FrontProxy(name).Composed(root)
		if fp.Exposure != nil {
			composed = append(composed, name) // its TLSRoute or Ingress
		}
		out = append(out, namer{what: "FrontProxy " + name, field: field.NewPath("spec", "frontProxies").Index(i).Child("name"), names: composed})
	}
	kc := n.AdminKubeconfig()
	return append(out, namer{what: "Kubeconfig " + kc, field: field.NewPath("spec", "admin"), names: names.Kubeconfig(kc).Composed(n.AdminKubeconfigSecret(s.Admin))})
}

// checkOwnNames refuses an installation two of whose parts would compose objects of one name.
func checkOwnNames(own []namer) field.ErrorList {
	var errs field.ErrorList
	owner := map[string]int{}
	for i, p := range own {
		for _, name := range p.names {
			j, taken := owner[name]
			if !taken {
				owner[name] = i
				continue
			}
			if j != i {
				errs = append(errs, field.Forbidden(p.field, fmt.Sprintf(
					"the %s this makes would compose %s, which this installation's %s composes too; choose another name",
					p.what, name, own[j].what)))
				break
			}
		}
	}
	return errs
}

// checkNeighbours refuses an installation whose parts would compose an object of a name that
// a neighbour composes: an installation created before this one in the namespace (of two,
// the later yields, so the one that ran first keeps running), or an XR of the function's
// kinds that no installation controls (the platform's own, which always wins).
func checkNeighbours(inst *v1alpha1.KcpInstallation, own []namer, st *observed.State) field.ErrorList {
	var errs field.ErrorList
	refuse := func(p namer, name, holder string) {
		errs = append(errs, field.Forbidden(p.field, fmt.Sprintf(
			"the %s this makes would compose %s, which %s composes; nothing of it is changed; rename this KcpInstallation or the part",
			p.what, name, holder)))
	}
	for _, other := range st.Names(v1alpha1.KindKcpInstallation) {
		var n v1alpha1.KcpInstallation
		if other == inst.GetName() || !required.Get(st, v1alpha1.KindKcpInstallation, other, &n) || !createdBefore(&n, inst) {
			continue
		}
		theirs := map[string]string{}
		for _, p := range namers(&n) {
			for _, name := range p.names {
				theirs[name] = p.what
			}
		}
		holder := func(what string) string {
			return fmt.Sprintf("the %s of KcpInstallation %s/%s (created before this one)", what, inst.GetNamespace(), other)
		}
		for _, p := range own {
			if name, what, ok := firstShared(p.names, theirs); ok {
				refuse(p, name, holder(what))
			}
		}
	}
	uid := string(inst.GetUID())
	for _, kind := range xrKinds {
		for _, name := range st.Names(kind) {
			l := st.Object(kind, name)
			if (uid != "" && l.Controller == uid) || l.ControllerKind == v1alpha1.KindKcpInstallation {
				continue // ours, or another installation's: compared through its installation above
			}
			theirs := map[string]string{}
			for _, n := range composedBy(st, kind, name) {
				theirs[n] = kind + " " + name
			}
			for _, p := range own {
				if shared, what, ok := firstShared(p.names, theirs); ok {
					refuse(p, shared, fmt.Sprintf("the %s/%s, which this installation does not control,", inst.GetNamespace(), what))
				}
			}
		}
	}
	return errs
}

// composedBy lists the names an XR of one of the function's kinds, as Crossplane sent it, may
// give an object. An XR whose spec does not decode still has the names its own name gives.
func composedBy(st *observed.State, kind, name string) []string {
	switch kind {
	case v1alpha1.KindRootShard:
		return names.RootShard(name).Composed()
	case v1alpha1.KindShard:
		return names.Shard(name).Composed()
	case v1alpha1.KindCacheServer:
		return names.CacheServer(name).Composed()
	case v1alpha1.KindVirtualWorkspace:
		return names.VirtualWorkspace(name).Composed()
	case v1alpha1.KindFrontProxy:
		var fp v1alpha1.FrontProxy
		_ = required.Get(st, kind, name, &fp)
		root := ""
		if r := fp.Spec.RootShard.Ref; r != nil {
			root = r.Name
		}
		return names.FrontProxy(name).Composed(names.RootShard(root))
	case v1alpha1.KindKubeconfig:
		var kc v1alpha1.Kubeconfig
		_ = required.Get(st, kind, name, &kc)
		return names.Kubeconfig(name).Composed(kc.Spec.SecretRef.Name)
	}
	return nil
}

// firstShared is the first of names that theirs holds, and what holds it there.
func firstShared(names []string, theirs map[string]string) (string, string, bool) {
	for _, n := range names {
		if what, ok := theirs[n]; ok {
			return n, what, true
		}
	}
	return "", "", false
}

// createdBefore orders installations by creation, and by name when created in the same
// second, so that of two neighbours exactly one yields.
func createdBefore(a, b *v1alpha1.KcpInstallation) bool {
	ta, tb := a.GetCreationTimestamp(), b.GetCreationTimestamp()
	if !ta.Equal(&tb) {
		return ta.Before(&tb)
	}
	return a.GetName() < b.GetName()
}

// etcdNames are the names managed etcd cluster e's objects take, with its restore's Jobs
// when m restores a snapshot.
func etcdNames(e names.Etcd, m *v1alpha1.ManagedEtcd) []string {
	out := e.Composed()
	if m != nil && m.Restore != nil {
		c := etcd.Cluster{Names: e, Spec: *m}
		out = append(out, etcd.RestoreJobNames(e, c.Replicas(), m.Restore.Snapshot)...)
	}
	return out
}

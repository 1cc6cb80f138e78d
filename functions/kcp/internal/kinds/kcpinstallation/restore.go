package kcpinstallation

import (
	"fmt"
	"strings"

	batchv1 "k8s.io/api/batch/v1"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/configuration-kcp/configuration-kcp/apis/v1alpha1"
	"github.com/configuration-kcp/configuration-kcp/functions/kcp/internal/compose/builder"
	"github.com/configuration-kcp/configuration-kcp/functions/kcp/internal/core/observed"
	"github.com/configuration-kcp/configuration-kcp/functions/kcp/internal/core/resource"
	"github.com/configuration-kcp/configuration-kcp/functions/kcp/internal/parts/etcd"
)

// A restore runs in the only safe order, one step per reconcile at most, each step read from
// what the cluster holds rather than remembered:
//
//  1. Checking: a Job reads the snapshot (etcdutl snapshot status verifies its hash). Nothing
//     is stopped, so a snapshot that is not there, or damaged, costs no downtime.
//  2. Stopping: kcp's servers, the front-proxies and the cluster's members are scaled to zero,
//     its backups suspended. The members' volumes are left alone until every member has
//     stopped; kcp cannot write to a stopped etcd.
//  3. Restoring: a Job per member restores the snapshot beside the member's data and swaps it
//     in (etcd.SwapScript). A member already restored from this snapshot is left as it is.
//  4. Starting: the members start on the restored data; once every member is ready, kcp's
//     servers; once the root shard and every shard serve, the front-proxies.
//  5. Restored, written to status.restores: the next reconcile composes no Job, and the
//     installation runs as before. The record is what keeps a restore from running twice.
//
// A Job that fails ends the restore at Failed: a check that failed stopped nothing; a member
// that could not be restored leaves kcp and etcd stopped, never half-restored and serving.
// Once stopped, a cluster stays stopped until a restore reaches Starting, whatever snapshot
// spec names meanwhile.

// restore is one managed etcd cluster's restore, as this reconcile composes it.
type restore struct {
	etcd.Restore
	phase   v1alpha1.RestorePhase
	message string
	// What is composed: the check Job, the members' Jobs; what is held at zero: the
	// cluster's members, kcp's servers, the front-proxies.
	checkJob, memberJobs               bool
	stopEtcd, stopServers, stopProxies bool
	// proxiesStarted: only the front-proxies' readiness stands between Starting and Restored.
	proxiesStarted bool
}

// planRestores derives each cluster's restore from its spec, the observed status and the
// observed Jobs, StatefulSet and children. It refuses what would leave a cluster
// half-restored: removing or replacing a restore whose Jobs write into the members' volumes,
// and a second restore while one is under way.
func planRestores(p *plan, st *observed.State) ([]restore, field.ErrorList) {
	before := observedRestores(st)
	var out []restore
	var errs field.ErrorList
	var underWay []string
	for i := range p.etcds {
		c := p.etcds[i]
		at := restoreField(p.inst, c)
		prev, had := before[c.Names.Name()]
		spec := c.Spec.Restore
		if had && prev.Phase == v1alpha1.RestoreRestoring && (spec == nil || spec.Snapshot != prev.Snapshot) {
			errs = append(errs, field.Forbidden(at, fmt.Sprintf("the restore of %s from %s is at step Restoring: its Jobs write into the members' volumes; set snapshot back to %s until status.restores says Starting, Restored or Failed", c.Names.Name(), prev.Snapshot, prev.Snapshot)))
			continue
		}
		if spec == nil {
			continue
		}
		r := restore{Restore: etcd.NewRestore(c, spec.Snapshot)}
		if had && prev.Snapshot == spec.Snapshot && prev.Phase == v1alpha1.RestoreRestored {
			r.phase, r.message = v1alpha1.RestoreRestored, "restored: remove "+at.String()
			out = append(out, r)
			continue
		}
		// Once stopped, stay stopped until a restore starts the cluster again: a step that
		// stopped it is recorded in status, and a cluster held at zero is seen holding even
		// while another snapshot is checked.
		stoppedBefore := (had && stopped(prev.Phase)) || held(st, etcdKey(c))
		r.step(p, st, stoppedBefore)
		if len(underWay) > 0 {
			errs = append(errs, field.Forbidden(at, "the restore of "+strings.Join(underWay, ", ")+" is under way: one restore at a time; remove this one until status.restores says Restored"))
		}
		underWay = append(underWay, c.Names.Name())
		out = append(out, r)
	}
	return out, errs
}

// stopped reports whether a restore at phase has stopped kcp and etcd.
func stopped(phase v1alpha1.RestorePhase) bool {
	switch phase {
	case v1alpha1.RestoreStopping, v1alpha1.RestoreRestoring, v1alpha1.RestoreStarting, v1alpha1.RestoreFailed:
		return true
	}
	return false
}

// step finds where r stands and what it composes.
func (r *restore) step(p *plan, st *observed.State, stoppedBefore bool) {
	c := r.Cluster
	r.checkJob = true
	r.stopEtcd, r.stopServers, r.stopProxies = stoppedBefore, stoppedBefore, stoppedBefore
	check := c.Names.RestoreCheckJob(r.ID)
	inst := p.inst.GetName()
	switch done, failed := jobOutcome(st, inst, check); {
	case failed:
		r.phase, r.message = v1alpha1.RestoreCheckFailed, fmt.Sprintf("Job %s could not read %s: kubectl logs job/%s; fix snapshot", check, r.Snapshot, check)
		if stoppedBefore {
			r.message += "; kcp and etcd stay stopped"
		} else {
			r.message += "; nothing was stopped"
		}
		return
	case !done:
		r.phase, r.message = v1alpha1.RestoreChecking, "Job "+check+" reads the snapshot"
		return
	}

	r.stopEtcd, r.stopServers, r.stopProxies = true, true, true
	var jobs []string
	started := false
	for m := range c.Replicas() {
		jobs = append(jobs, c.Names.RestoreJob(r.ID, m))
		started = started || st.Exists(jobKey(inst, jobs[m]))
	}
	if !started && !etcdStopped(st, etcdKey(c)) {
		r.phase, r.message = v1alpha1.RestoreStopping, fmt.Sprintf("waiting for the members of StatefulSet %s to stop", c.Names.Name())
		return
	}
	r.memberJobs = true
	var running []string
	for _, j := range jobs {
		switch done, failed := jobOutcome(st, inst, j); {
		case failed:
			r.phase, r.message = v1alpha1.RestoreFailed, fmt.Sprintf("Job %s could not restore its member: kubectl logs job/%s; kcp and etcd stay stopped, each member's data as its Job left it. Fix the cause and delete the Job to run it again (members restored already are left as they are), or name another snapshot", j, j)
			return
		case !done:
			running = append(running, j)
		}
	}
	if len(running) > 0 {
		r.phase, r.message = v1alpha1.RestoreRestoring, "Jobs "+strings.Join(running, ", ")+" restore the members"
		return
	}

	r.phase = v1alpha1.RestoreStarting
	r.stopEtcd = false
	if ready, current := st.StatefulSetReady(etcdKey(c)); !current || ready != c.Replicas() {
		r.message = fmt.Sprintf("%d of %d members of StatefulSet %s ready", ready, c.Replicas(), c.Names.Name())
		return
	}
	r.stopServers = false
	if waiting := serversNotServing(p, st); len(waiting) > 0 {
		r.message = "kcp starts: waiting for " + strings.Join(waiting, ", ") + " to serve before the front-proxies start"
		return
	}
	r.stopProxies, r.proxiesStarted = false, true
	r.message = "the front-proxies start"
}

// serversNotServing lists the root shard and shards not serving yet (childServing).
func serversNotServing(p *plan, st *observed.State) []string {
	var out []string
	for _, c := range p.children {
		if (c.kind == v1alpha1.KindRootShard || c.kind == v1alpha1.KindShard) && !childServing(st, c.key) {
			out = append(out, c.kind+" "+c.name())
		}
	}
	return out
}

// proxiesRunning reports whether every front-proxy serves again (childServing).
func proxiesRunning(p *plan, st *observed.State) bool {
	for _, c := range p.children {
		if c.kind == v1alpha1.KindFrontProxy && !childServing(st, c.key) {
			return false
		}
	}
	return true
}

// childServing reports whether the child XR key has an available pod, as of its current
// spec: its Ready condition is True for its latest generation, and its
// status.availableReplicas is above 0. A child released from zero replicas is seen Ready
// from when it was held, until Crossplane reconciles its new spec.
func childServing(st *observed.State, key resource.Name) bool {
	meta, _ := st.Map(key, "metadata")
	status, _ := st.Map(key, "status")
	generation, _ := meta["generation"].(float64)
	if n, _ := status["availableReplicas"].(float64); n < 1 {
		return false
	}
	conds, _ := status["conditions"].([]any)
	for _, c := range conds {
		m, _ := c.(map[string]any)
		if m["type"] == "Ready" {
			seen, _ := m["observedGeneration"].(float64)
			return m["status"] == "True" && seen >= generation
		}
	}
	return false
}

// hold scales the children a restore stops to zero. While a restore starts them again, a
// child it no longer holds gets its replicas said out loud (spec's, or its kind's default):
// without them a kind keeps the live count, the zero it was held at.
func hold(p *plan, rs []restore) {
	if len(rs) == 0 {
		return
	}
	var release, servers, proxies bool
	stop := map[string]bool{}
	for _, r := range rs {
		release = release || r.phase == v1alpha1.RestoreStarting
		servers = servers || r.stopServers
		proxies = proxies || r.stopProxies
		stop[r.Cluster.Names.Name()] = r.stopEtcd
	}
	for i := range p.etcds {
		p.etcds[i].Stopped = stop[p.etcds[i].Names.Name()]
	}
	// Every kind this holds defaults to 2 replicas (a cache server in etcd too,
	// cache.DefaultExternalReplicas; TestHoldReleasesToEachKindsDefault).
	set := func(r **int32, stopped bool) {
		switch {
		case stopped:
			zero := int32(0)
			*r = &zero
		case release && *r == nil:
			def := int32(builder.DefaultReplicas)
			*r = &def
		}
	}
	for _, c := range p.children {
		switch x := c.xr.(type) {
		case *v1alpha1.RootShard:
			set(&x.Spec.Replicas, servers)
		case *v1alpha1.Shard:
			set(&x.Spec.Replicas, servers)
		case *v1alpha1.VirtualWorkspace:
			set(&x.Spec.Replicas, servers)
		case *v1alpha1.CacheServer:
			if x.Spec.Etcd != nil { // an embedded cache is its pod's own: nothing of it is restored
				set(&x.Spec.Replicas, servers)
			}
		case *v1alpha1.FrontProxy:
			set(&x.Spec.Replicas, proxies)
		}
	}
}

// composeRestore adds r's Jobs: each is Ready once it completed.
func composeRestore(b *builder.Builder, r restore) {
	add := func(name string, job *batchv1.Job) {
		key := b.Key("job", name)
		done, _ := jobOutcome(b.St, strings.TrimSuffix(b.Prefix, "-"), name)
		b.Set.Add(key, job, builder.Readiness(done))
	}
	if r.checkJob {
		add(r.Cluster.Names.RestoreCheckJob(r.ID), r.CheckJob())
	}
	if r.memberJobs {
		for m := range r.Cluster.Replicas() {
			add(r.Cluster.Names.RestoreJob(r.ID, m), r.MemberJob(m))
		}
	}
}

// status is r as status.restores reports it.
func (r restore) status() v1alpha1.InstallationRestore {
	return v1alpha1.InstallationRestore{Cluster: r.Cluster.Names.Name(), Snapshot: r.Snapshot, Phase: r.phase, Message: r.message}
}

// jobKey is the composition resource name of installation's restore Job name, as
// builder.Key names every object: job-<name without the installation's prefix>.
func jobKey(installation, name string) resource.Name {
	return resource.Name("job-" + strings.TrimPrefix(name, installation+"-"))
}

// jobOutcome reports whether installation's composed Job name completed or failed.
func jobOutcome(st *observed.State, installation, name string) (done, failed bool) {
	key := jobKey(installation, name)
	return st.ConditionTrue(key, "Complete"), st.ConditionTrue(key, "Failed")
}

// held reports whether the StatefulSet key is held at zero members: only a restore does that.
func held(st *observed.State, key resource.Name) bool {
	spec, ok := st.Map(key, "spec")
	replicas, set := spec["replicas"].(float64)
	return ok && set && replicas == 0
}

// etcdStopped reports whether the StatefulSet key has no pod left at the spec it was given.
func etcdStopped(st *observed.State, key resource.Name) bool {
	if !st.Exists(key) {
		return true
	}
	spec, _ := st.Map(key, "spec")
	status, _ := st.Map(key, "status")
	meta, _ := st.Map(key, "metadata")
	replicas, _ := spec["replicas"].(float64)
	pods, _ := status["replicas"].(float64)
	observedGen, _ := status["observedGeneration"].(float64)
	generation, _ := meta["generation"].(float64)
	return replicas == 0 && pods == 0 && observedGen >= generation
}

// observedRestores is status.restores as the installation last wrote it, by cluster.
func observedRestores(st *observed.State) map[string]v1alpha1.InstallationRestore {
	status, _ := st.Composite()["status"].(map[string]any)
	list, _ := status["restores"].([]any)
	if len(list) == 0 {
		return nil // the usual case: no map to allocate on every reconcile
	}
	out := make(map[string]v1alpha1.InstallationRestore, len(list))
	for _, e := range list {
		m, _ := e.(map[string]any)
		cluster, _ := m["cluster"].(string)
		snapshot, _ := m["snapshot"].(string)
		phase, _ := m["phase"].(string)
		if cluster != "" {
			out[cluster] = v1alpha1.InstallationRestore{Cluster: cluster, Snapshot: snapshot, Phase: v1alpha1.RestorePhase(phase)}
		}
	}
	return out
}

// restoreField is where cluster c's restore is written: spec.etcd.managed.restore, or a
// shard's managedEtcd.restore.
func restoreField(inst *v1alpha1.KcpInstallation, c etcd.Cluster) *field.Path {
	if c.Names.Shard == "" {
		return field.NewPath("spec", "etcd", "managed", "restore")
	}
	for i, sh := range inst.Spec.Shards {
		if sh.Name == c.Names.Shard {
			return field.NewPath("spec", "shards").Index(i).Child("managedEtcd", "restore")
		}
	}
	return field.NewPath("spec", "shards")
}

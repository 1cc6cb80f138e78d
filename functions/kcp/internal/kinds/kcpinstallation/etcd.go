package kcpinstallation

import (
	"fmt"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/configuration-kcp/configuration-kcp/apis/v1alpha1"
	"github.com/configuration-kcp/configuration-kcp/functions/kcp/internal/compose/builder"
	"github.com/configuration-kcp/configuration-kcp/functions/kcp/internal/core/observed"
	"github.com/configuration-kcp/configuration-kcp/functions/kcp/internal/core/resource"
	"github.com/configuration-kcp/configuration-kcp/functions/kcp/internal/parts/etcd"
	"github.com/configuration-kcp/configuration-kcp/functions/kcp/internal/parts/workload"
)

// keyEtcd is the composition resource name of the installation's own etcd cluster's
// StatefulSet, whose readiness the installation reports (see etcdKey).
const keyEtcd resource.Name = "statefulset-etcd"

// etcdKey is the composition resource name of a cluster's StatefulSet: keyEtcd for the
// installation's cluster, statefulset-<shard>-etcd for a shard's.
func etcdKey(c etcd.Cluster) resource.Name {
	if c.Names.Shard != "" {
		return resource.Name("statefulset-" + c.Names.Shard + "-etcd")
	}
	return keyEtcd
}

// composeEtcd adds managed etcd cluster c's objects to b: its PKI, its Services, its members
// and, with spec.backup, the CronJob that saves its snapshots. It reports whether every
// member of the current generation is ready and, if not, why.
func composeEtcd(b *builder.Builder, c etcd.Cluster) (ready bool, why string) {
	b.Issuer(c.SelfSignedIssuer())
	for _, ca := range []string{c.Names.ClientCA(), c.Names.PeerCA()} {
		cert, issuer := c.CA(ca)
		b.Certificate(cert, nil)
		b.Issuer(issuer)
	}
	b.Certificate(c.ServerCertificate(), nil)
	b.Certificate(c.PeerCertificate(), nil)
	b.Certificate(c.ClientCertificate(), nil)

	client, members := b.Key("service", c.Names.Name()), b.Key("service", c.Names.MembersService())
	b.Set.Add(client, c.ClientService(), builder.Readiness(b.St.Exists(client)))
	b.Set.Add(members, c.MembersService(), builder.Readiness(b.St.Exists(members)))

	key := etcdKey(c)
	readyMembers, observedOK := b.St.StatefulSetReady(key)
	ready = observedOK && readyMembers == c.Replicas()
	sts := c.StatefulSet()
	b.Set.Add(key, sts, builder.Readiness(ready))
	if pdb := workload.DisruptionBudget(sts.ObjectMeta, sts.Spec.Replicas, sts.Spec.Selector, nil); pdb != nil {
		// A drain takes one member at a time, so a three-member etcd keeps its quorum.
		k := b.Key("poddisruptionbudget", c.Names.Name())
		b.Set.Add(k, pdb, builder.Readiness(b.St.Exists(k)))
	}
	composeEtcdBackup(b, c)
	switch {
	case ready:
		return true, ""
	case !b.St.Exists(key):
		return false, "StatefulSet " + c.Names.Name() + " is not created yet"
	default:
		return false, fmt.Sprintf("StatefulSet %s has %d of %d members ready", c.Names.Name(), readyMembers, c.Replicas())
	}
}

// composeEtcdBackup adds the backup CronJob when spec.backup is set. A new CronJob waits
// until the cluster's client certificate is issued, so that its first run finds its Secret;
// an existing one is always rebuilt.
func composeEtcdBackup(b *builder.Builder, c etcd.Cluster) {
	if c.Spec.Backup == nil {
		return
	}
	key := b.Key("cronjob", c.Names.BackupCronJob())
	if b.NotBeforeIssued(key) {
		return
	}
	b.Set.Add(key, c.BackupCronJob(), builder.Readiness(b.St.Exists(key)))
}

// composeEtcdMonitoring composes the members' PodMonitor when the installation asks for
// monitoring; it returns a warning while prometheus-operator is not installed.
func composeEtcdMonitoring(b *builder.Builder, c etcd.Cluster, m *v1alpha1.Monitoring) (warning string) {
	return b.Monitoring(m, "spec.monitoring", c.MonitoringTarget(), nil)
}

// etcdBackupStatus is the state of a cluster's backups as its observed CronJob reports it;
// nil when the cluster has no backup.
func etcdBackupStatus(b *builder.Builder, c etcd.Cluster) *v1alpha1.InstallationBackup {
	if c.Spec.Backup == nil {
		return nil
	}
	key := b.Key("cronjob", c.Names.BackupCronJob())
	return &v1alpha1.InstallationBackup{
		Cluster:            c.Names.Name(),
		CronJob:            c.Names.BackupCronJob(),
		LastScheduleTime:   observedTime(b.St, key, "lastScheduleTime"),
		LastSuccessfulTime: observedTime(b.St, key, "lastSuccessfulTime"),
	}
}

// observedTime reads a timestamp of an observed object's status; nil when it is unset or
// unreadable.
func observedTime(st *observed.State, key resource.Name, field string) *metav1.Time {
	t, err := time.Parse(time.RFC3339, st.String(key, "status", field))
	if err != nil {
		return nil
	}
	mt := metav1.NewTime(t)
	return &mt
}

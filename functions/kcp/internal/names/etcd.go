package names

import "strconv"

// Etcd names the objects of one managed etcd cluster of a KcpInstallation: the
// installation's own (Shard ""), which the root shard and every other shard share, or the
// one a shard with managedEtcd has to itself.
type Etcd struct {
	// Installation is the KcpInstallation's name.
	Installation string
	// Shard is the name, in spec.shards, of the shard the cluster serves alone; "" for the
	// installation's own cluster.
	Shard string
}

// Instance is the app.kubernetes.io/instance of the cluster's objects, so that each
// cluster's StatefulSet selects its own members only: <i>, or <i>-<shard>.
func (e Etcd) Instance() string {
	if e.Shard != "" {
		return e.Installation + "-" + e.Shard
	}
	return e.Installation
}

// Name is the StatefulSet's and the client Service's name: <instance>-etcd.
func (e Etcd) Name() string { return e.Instance() + "-etcd" }

// MembersService is the headless Service that gives every member a stable DNS name.
func (e Etcd) MembersService() string { return e.Name() + "-members" }

// SelfSignedIssuer is the Issuer that signs the cluster's two CAs.
func (e Etcd) SelfSignedIssuer() string { return e.Name() + "-selfsigned" }

// ClientCA is the CA (Certificate, Secret and Issuer) of the serving and client certificates.
func (e Etcd) ClientCA() string { return e.Name() + "-client-ca" }

// PeerCA is the CA (Certificate, Secret and Issuer) of the member-to-member certificate.
func (e Etcd) PeerCA() string { return e.Name() + "-peer-ca" }

// ServerCertificate is every member's serving certificate.
func (e Etcd) ServerCertificate() string { return e.Name() + "-server" }

// PeerCertificate is every member's certificate towards its peers.
func (e Etcd) PeerCertificate() string { return e.Name() + "-peer" }

// ClientSecret is the Certificate, and its Secret, kcp connects with.
func (e Etcd) ClientSecret() string { return e.Name() + "-client" }

// BackupCronJob is the CronJob that takes the cluster's snapshots.
func (e Etcd) BackupCronJob() string { return e.Name() + "-backup" }

// Composed lists every name the cluster's objects take: the StatefulSet, Services and
// PodDisruptionBudget, the Issuers, the Certificates with the Secrets cert-manager writes,
// and the backup CronJob (reserved whether or not backup is set).
func (e Etcd) Composed() []string {
	return []string{e.Name(), e.MembersService(), e.SelfSignedIssuer(), e.ClientCA(), e.PeerCA(), e.ServerCertificate(), e.PeerCertificate(), e.ClientSecret(), e.BackupCronJob()}
}

// RestoreCheckJob is the Job that reads the snapshot of restore id before anything stops.
func (e Etcd) RestoreCheckJob(id string) string { return e.Name() + "-restore-" + id + "-check" }

// RestoreJob is the Job that restores the snapshot of restore id into member's volume.
func (e Etcd) RestoreJob(id string, member int32) string {
	return e.Name() + "-restore-" + id + "-" + strconv.Itoa(int(member))
}

// MemberClaim is the PersistentVolumeClaim the StatefulSet gives member (its claim template
// data, as Kubernetes names it: <template>-<statefulset>-<ordinal>).
func (e Etcd) MemberClaim(member int32) string {
	return "data-" + e.Name() + "-" + strconv.Itoa(int(member))
}

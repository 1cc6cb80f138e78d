package kcpinstallation

import (
	"fmt"
	"strings"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/configuration-kcp/configuration-kcp/apis/v1alpha1"
	"github.com/configuration-kcp/configuration-kcp/functions/kcp/internal/check"
	"github.com/configuration-kcp/configuration-kcp/functions/kcp/internal/names"
)

// Validate checks what no child's own validation can: the size of what the installation
// copies into its children, and its managed etcd. It also checks the scheduling blocks,
// which the children would check too, so that a message names the installation's field.
func Validate(inst *v1alpha1.KcpInstallation) field.ErrorList {
	errs := check.Budget(inst.Spec, copies(inst.Spec))
	errs = append(errs, check.Templates(inst.Spec)...)
	if e := inst.Spec.Etcd; e != nil && e.Managed != nil {
		c := names.Etcd{Installation: inst.GetName()}
		errs = append(errs, validateManagedEtcd(field.NewPath("spec", "etcd", "managed"), c, e.Managed)...)
	}
	for i, sh := range inst.Spec.Shards {
		if sh.ManagedEtcd != nil {
			c := names.Etcd{Installation: inst.GetName(), Shard: sh.Name}
			errs = append(errs, validateManagedEtcd(field.NewPath("spec", "shards").Index(i).Child("managedEtcd"), c, sh.ManagedEtcd)...)
		}
	}
	errs = append(errs, validatePrefixes(inst.Spec)...)
	errs = append(errs, validateReplicas(inst.Spec)...)
	errs = append(errs, validateFrontProxyGroups(inst.Spec)...)
	if r := inst.Spec.RootShard; r != nil {
		errs = append(errs, validatePublic(field.NewPath("spec", "rootShard", "public"), r.Public)...)
	}
	for i, sh := range inst.Spec.Shards {
		errs = append(errs, validatePublic(field.NewPath("spec", "shards").Index(i).Child("public"), sh.Public)...)
	}
	return errs
}

// validateReplicas bounds every replica count a tenant writes, as the XRD does, for
// `crossplane composition render` and API servers that skipped the schema.
func validateReplicas(s v1alpha1.KcpInstallationSpec) field.ErrorList {
	var errs field.ErrorList
	bound := func(p *field.Path, r *int32) {
		if r != nil && (*r < 0 || *r > v1alpha1.MaxInstallationReplicas) {
			errs = append(errs, field.Invalid(p, *r, fmt.Sprintf("must be between 0 and %d: an installation shares the platform's nodes; ask the platform team for a per-kind XR if one component needs more", v1alpha1.MaxInstallationReplicas)))
		}
	}
	spec := field.NewPath("spec")
	if r := s.RootShard; r != nil {
		bound(spec.Child("rootShard", "replicas"), r.Replicas)
		if vw := r.VirtualWorkspace; vw != nil {
			bound(spec.Child("rootShard", "virtualWorkspace", "replicas"), vw.Replicas)
		}
	}
	for i, sh := range s.Shards {
		bound(spec.Child("shards").Index(i).Child("replicas"), sh.Replicas)
		if vw := sh.VirtualWorkspace; vw != nil {
			bound(spec.Child("shards").Index(i).Child("virtualWorkspace", "replicas"), vw.Replicas)
		}
	}
	for i, fp := range s.FrontProxies {
		bound(spec.Child("frontProxies").Index(i).Child("replicas"), fp.Replicas)
	}
	if c := s.CacheServer; c != nil {
		bound(spec.Child("cacheServer", "replicas"), c.Replicas)
		if r := c.Replicas; c.Embedded && r != nil && *r > 1 {
			errs = append(errs, field.Invalid(spec.Child("cacheServer", "replicas"), *r,
				"an embedded cache is its pod's own, so more replicas would each hold a different cache: remove replicas or set it to 1, or store the cache in etcd (remove embedded)"))
		}
	}
	return errs
}

// validatePrefixes checks every etcd key prefix a tenant writes, where it writes it: each
// becomes a --etcd-prefix flag, and the installation derives the shards' and the cache's
// prefixes from spec.etcd.external.prefix.
func validatePrefixes(s v1alpha1.KcpInstallationSpec) field.ErrorList {
	var errs field.ErrorList
	if e := s.Etcd; e != nil && e.External != nil {
		errs = append(errs, check.EtcdPrefix(field.NewPath("spec", "etcd", "external", "prefix"), e.External.Prefix)...)
	}
	for i, sh := range s.Shards {
		if sh.Etcd != nil {
			errs = append(errs, check.EtcdPrefix(field.NewPath("spec", "shards").Index(i).Child("etcd", "prefix"), sh.Etcd.Prefix)...)
		}
	}
	if c := s.CacheServer; c != nil && c.Etcd != nil {
		errs = append(errs, check.EtcdPrefix(field.NewPath("spec", "cacheServer", "etcd", "prefix"), c.Etcd.Prefix)...)
	}
	return errs
}

// validatePublic refuses a public port that the shard's LoadBalancer Service would not
// expose: it has the shard's ports, 6443 for kcp.
func validatePublic(p *field.Path, pub *v1alpha1.InstallationPublic) field.ErrorList {
	if pub == nil || pub.Port == 0 || pub.Port == names.Port || (pub.ServiceType != "" && pub.ServiceType != corev1.ServiceTypeLoadBalancer) {
		return nil
	}
	return field.ErrorList{field.Invalid(p.Child("port"), pub.Port, "a LoadBalancer Service exposes the shard on port 6443: leave port unset, or set serviceType to ClusterIP and expose the name on this port yourself (TLS passthrough to 6443)")}
}

// copies is how many composed objects each field of an installation's spec is copied into:
// a shard's or front-proxy's own entry, and the admin settings, into one child; everything
// else (the image and its pull secrets, the certificates, the etcd) into every child.
func copies(s v1alpha1.KcpInstallationSpec) check.Copies {
	children := 2 + len(s.Shards) + max(len(s.FrontProxies), 1) // root shard, admin Kubeconfig
	if s.CacheServer != nil {
		children++
	}
	return func(field string) int {
		switch field {
		case "shards", "frontProxies", "admin":
			return 1
		}
		return children
	}
}

// validateManagedEtcd refuses what the API server would refuse in the etcd StatefulSet and
// backup CronJob the installation composes for cluster c (spec.etcd.managed or a shard's
// managedEtcd, at p); its children check the rest with their own kinds' validation.
func validateManagedEtcd(p *field.Path, c names.Etcd, m *v1alpha1.ManagedEtcd) field.ErrorList {
	var errs field.ErrorList
	errs = append(errs, check.ImageReference(p.Child("image"), m.Image)...)
	if r := m.Replicas; r != 0 && r != 1 && r != 3 {
		// The XRD's enum says the same; an etcd of a thousand members would claim a thousand
		// volumes of the platform's storage.
		errs = append(errs, field.NotSupported(p.Child("replicas"), r, []string{"1", "3"}))
	}
	errs = append(errs, check.Resources(p.Child("resources"), m.Resources)...)
	if pr := m.Profiling; pr != nil && pr.Port != 0 {
		errs = append(errs, field.Forbidden(p.Child("profiling", "port"), "etcd serves its profiles on its client port, to clients with the cluster's client certificate, not on a port of their own; remove port"))
	}
	if s := m.Storage; s != nil {
		errs = append(errs, check.PositiveQuantity(p.Child("storage", "size"), s.Size)...)
	}
	errs = append(errs, validateRestore(p, c, m)...)
	if b := m.Backup; b != nil {
		bp := p.Child("backup")
		if b.Schedule != "" {
			errs = append(errs, check.CronSchedule(bp.Child("schedule"), b.Schedule)...)
		}
		if b.Retention != nil && *b.Retention < 1 {
			errs = append(errs, field.Invalid(bp.Child("retention"), *b.Retention, "must keep at least one snapshot"))
		}
		errs = append(errs, check.ImageReference(bp.Child("image"), b.Image)...)
		if b.Volume.ClaimName == "" {
			errs = append(errs, field.Required(bp.Child("volume", "claimName"), "name the PersistentVolumeClaim, in this namespace, the snapshots are written to"))
		} else {
			for _, msg := range validation.IsDNS1123Subdomain(b.Volume.ClaimName) {
				errs = append(errs, field.Invalid(bp.Child("volume", "claimName"), b.Volume.ClaimName, msg))
			}
		}
		if n := c.BackupCronJob(); len(n) > check.MaxCronJobName {
			fix := "shorten this KcpInstallation's metadata.name"
			if c.Shard != "" {
				fix += " or the shard's name"
			}
			errs = append(errs, field.Invalid(bp, n, fmt.Sprintf("the backup CronJob %s would be longer than the %d characters a CronJob name may have: %s", n, check.MaxCronJobName, fix)))
		}
	}
	return errs
}

// validateRestore refuses a restore (of the managed etcd at managed) with nowhere to read its
// snapshot from, or a snapshot that is not one of this cluster's backups: they write
// <cluster>/<pod>.db, and a file of another directory is another cluster's data, or none.
func validateRestore(managed *field.Path, c names.Etcd, m *v1alpha1.ManagedEtcd) field.ErrorList {
	r := m.Restore
	if r == nil {
		return nil
	}
	p := managed.Child("restore")
	var errs field.ErrorList
	if m.Backup == nil {
		errs = append(errs, field.Required(managed.Child("backup"), "a restore reads the snapshot from the backups' volume: set backup.volume.claimName to the claim that holds it"))
	}
	dir, file, ok := strings.Cut(r.Snapshot, "/")
	switch {
	case !ok || dir != c.Name() || file == "" || strings.Contains(file, "/") || !strings.HasSuffix(file, ".db") || strings.HasPrefix(file, "."):
		errs = append(errs, field.Invalid(p.Child("snapshot"), r.Snapshot, fmt.Sprintf("name a snapshot of this cluster's backups, %s/<file>.db, as its backup pods write them (kubectl logs of a backup Job's prune container lists them)", c.Name())))
	}
	if n := c.RestoreCheckJob("00000000"); len(n) > check.MaxJobName {
		errs = append(errs, field.Invalid(p, n, fmt.Sprintf("the restore's Job %s would be longer than the %d characters a Job's pods can be labelled with: shorten this KcpInstallation's metadata.name or the shard's name", n, check.MaxJobName)))
	}
	return errs
}

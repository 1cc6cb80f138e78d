package kcpinstallation

import (
	"fmt"

	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/configuration-kcp/configuration-kcp/apis/v1alpha1"
	"github.com/configuration-kcp/configuration-kcp/functions/kcp/internal/check"
	"github.com/configuration-kcp/configuration-kcp/functions/kcp/internal/compose/policy"
	"github.com/configuration-kcp/configuration-kcp/functions/kcp/internal/parts/etcd"
	"github.com/configuration-kcp/configuration-kcp/functions/kcp/internal/parts/workload"
)

// checkLimits holds the rates and sizes whose cost falls on what every team shares to the
// platform's limits (data.limits), in every namespace but the platform's. A feature the
// policy refuses is not bounded too: checkFeatures already says to remove it. The XRD's
// patterns say the same for the syntax; this holds for clients that skip the schema.
func checkLimits(inst *v1alpha1.KcpInstallation, p policy.Policy) field.ErrorList {
	var errs field.ErrorList
	ns := inst.GetNamespace()
	b, bounded := p.Bounds(ns)
	where := func(limit string) string {
		return fmt.Sprintf("for installations in namespace %s (the platform's policy, %s %s, data.limits.%s)", ns, policy.Kind, policy.Name, limit)
	}
	spec := field.NewPath("spec")
	s := inst.Spec

	if m := s.Monitoring; m.On() && m.Interval != "" {
		path := spec.Child("monitoring", "interval")
		d, err := policy.ParseDuration(m.Interval)
		switch {
		case err != nil:
			errs = append(errs, field.Invalid(path, m.Interval, err.Error()))
		case bounded && p.AllowsFeature(ns, policy.FeatureMonitoring) && d < b.MonitoringInterval:
			errs = append(errs, field.Invalid(path, m.Interval, fmt.Sprintf(
				"at least %s %s: every scrape of every pod loads the platform's Prometheus; scrape less often, leave interval unset for Prometheus' own, or ask the platform team to lower the limit",
				policy.FormatDuration(b.MonitoringInterval), where("monitoringInterval"))))
		}
	}

	if a := s.Audit; bounded && a != nil && a.Log != nil && a.Log.Volume == nil && p.AllowsFeature(ns, policy.FeatureAuditLogs) {
		_, maxBackups, maxSize := a.Log.Limits()
		size := workload.AuditLogSizeLimit(maxBackups, maxSize)
		if size.Cmp(b.AuditLogEmptyDir) > 0 {
			errs = append(errs, field.Invalid(spec.Child("audit", "log"), size.String(), fmt.Sprintf(
				"maxSize (%d MB) times maxBackups + 2 (%d) fills an emptyDir of %s on the node's disk of every pod; at most %s %s; lower maxSize or maxBackups, write the files to a claim of the namespace (volume.claimName), or ask the platform team to raise the limit",
				maxSize, int64(maxBackups)+2, size, &b.AuditLogEmptyDir, where("auditLogEmptyDir"))))
		}
	}

	backup := func(path *field.Path, m *v1alpha1.ManagedEtcd) {
		if !bounded || m == nil || m.Backup == nil {
			return
		}
		schedule := m.Backup.Schedule
		if schedule == "" {
			schedule = etcd.DefaultBackupSchedule
		}
		gap, err := check.CronInterval(schedule)
		if err != nil || gap >= b.BackupInterval {
			return // validateManagedEtcd refuses a schedule that does not parse
		}
		errs = append(errs, field.Invalid(path.Child("backup", "schedule"), m.Backup.Schedule, fmt.Sprintf(
			"takes a snapshot as often as every %s; at least %s apart %s: each snapshot writes the whole database to the platform's storage and runs a pod on its nodes; schedule fewer, or ask the platform team to lower the limit",
			policy.FormatDuration(gap), policy.FormatDuration(b.BackupInterval), where("backupInterval"))))
	}
	if e := s.Etcd; e != nil {
		backup(spec.Child("etcd", "managed"), e.Managed)
	}
	for i, sh := range s.Shards {
		backup(spec.Child("shards").Index(i).Child("managedEtcd"), sh.ManagedEtcd)
	}
	return errs
}

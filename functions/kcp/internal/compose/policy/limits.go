package policy

import (
	"errors"
	"fmt"
	"time"

	"github.com/prometheus/common/model"
	"k8s.io/apimachinery/pkg/api/resource"
)

// Limits bound the rates and sizes an installation sets whose cost falls on what every team
// shares and no ResourceQuota of the team's namespace counts: the platform's Prometheus, its
// nodes' disks, its storage. They hold in every namespace but the platform's; what the policy
// leaves unset has a default. data.limits in the policy.
type Limits struct {
	// MonitoringInterval is the shortest spec.monitoring.interval, a Prometheus duration
	// ("0" for no minimum). Defaults to 30s.
	MonitoringInterval string `json:"monitoringInterval,omitempty"`
	// AuditLogEmptyDir is the largest emptyDir an audit log (spec.audit.log without a volume)
	// may fill on a node's disk, per pod. Defaults to 1Gi; 0 leaves a claim of the namespace
	// the only place for audit files.
	AuditLogEmptyDir *resource.Quantity `json:"auditLogEmptyDir,omitempty"`
	// BackupInterval is the shortest time between two snapshots a managed etcd's backup
	// schedule may take, a Prometheus duration ("0" for no minimum). Defaults to 1h.
	BackupInterval string `json:"backupInterval,omitempty"`
}

// The defaults of Limits.
const (
	// DefaultMonitoringInterval is kube-prometheus-stack's own scrape interval: a team
	// scrapes no more often than the platform scrapes its own targets.
	DefaultMonitoringInterval = 30 * time.Second
	// DefaultBackupInterval: a snapshot writes the whole database (etcd's 2 GiB quota, by
	// default) to the platform's storage and runs a pod on its nodes; hourly is the most
	// frequent schedule in common use, six times the default "0 */6 * * *".
	DefaultBackupInterval = time.Hour
)

// DefaultAuditLogEmptyDir holds the Helm chart's default log (250 MB files, one rotated kept:
// 750Mi) and is 5% of a 20 GiB node disk, the smallest common default, so a few kcp pods on
// one node stay far from the kubelet's eviction threshold (10% free).
var DefaultAuditLogEmptyDir = resource.MustParse("1Gi")

// Bounds are the Limits of one namespace, defaults applied.
type Bounds struct {
	MonitoringInterval time.Duration
	AuditLogEmptyDir   resource.Quantity
	BackupInterval     time.Duration
}

// Bounds returns the limits an installation in namespace is held to, and false for a platform
// namespace, which is held to none: the platform pays for what it spends itself.
func (p Policy) Bounds(namespace string) (Bounds, bool) {
	if p.Platform(namespace) {
		return Bounds{}, false
	}
	b := Bounds{MonitoringInterval: DefaultMonitoringInterval, AuditLogEmptyDir: DefaultAuditLogEmptyDir, BackupInterval: DefaultBackupInterval}
	l := p.Limits
	if d, err := ParseDuration(l.MonitoringInterval); l.MonitoringInterval != "" && err == nil {
		b.MonitoringInterval = d
	}
	if l.AuditLogEmptyDir != nil {
		b.AuditLogEmptyDir = *l.AuditLogEmptyDir
	}
	if d, err := ParseDuration(l.BackupInterval); l.BackupInterval != "" && err == nil {
		b.BackupInterval = d
	}
	return b, true
}

// validate refuses limits Bounds could not apply: Read reports them, rather than the
// defaults silently replacing what the platform wrote.
func (l Limits) validate() error {
	var errs []error
	for _, d := range []struct{ name, value string }{{"monitoringInterval", l.MonitoringInterval}, {"backupInterval", l.BackupInterval}} {
		if d.value == "" {
			continue
		}
		if _, err := ParseDuration(d.value); err != nil {
			errs = append(errs, fmt.Errorf("%s: %w", d.name, err))
		}
	}
	if q := l.AuditLogEmptyDir; q != nil && q.Sign() < 0 {
		errs = append(errs, fmt.Errorf("auditLogEmptyDir: %s is negative", q))
	}
	return errors.Join(errs...)
}

// ParseDuration parses a Prometheus duration: "0", or numbers with the units y, w, d, h, m,
// s and ms, largest first (1h30m, 1d, 500ms); a year is 365 days.
func ParseDuration(s string) (time.Duration, error) {
	d, err := model.ParseDuration(s)
	if err != nil {
		return 0, fmt.Errorf("%q is not a Prometheus duration such as 30s, 1m30s or 1d: %w", s, err)
	}
	return time.Duration(d), nil
}

// FormatDuration writes d as Prometheus does: 1m30s, 1d, 500ms.
func FormatDuration(d time.Duration) string {
	return model.Duration(d).String()
}

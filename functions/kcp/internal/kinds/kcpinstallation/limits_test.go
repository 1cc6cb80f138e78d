package kcpinstallation

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	"k8s.io/utils/ptr"

	"github.com/configuration-kcp/configuration-kcp/apis/v1alpha1"
	"github.com/configuration-kcp/configuration-kcp/functions/kcp/internal/testworld"
)

// limitsPolicy is the platform's EnvironmentConfig with these features and data.limits, and
// platform as its namespace.
func limitsPolicy(features, limits map[string]any) map[string]any {
	p := featurePolicy(features)
	if limits != nil {
		p["data"].(map[string]any)["limits"] = limits
	}
	return p
}

// monitored turns monitoring on, scraping at interval ("" for Prometheus' own).
func monitored(interval string) func(*v1alpha1.KcpInstallation) {
	return func(i *v1alpha1.KcpInstallation) {
		i.Spec.Monitoring = &v1alpha1.Monitoring{Enabled: true, Interval: interval}
	}
}

// auditFiles writes audit files of maxSize megabytes, maxBackups rotated ones kept, to an
// emptyDir, or to claim.
func auditFiles(maxBackups, maxSize int32, claim string) func(*v1alpha1.KcpInstallation) {
	return func(i *v1alpha1.KcpInstallation) {
		auditLogged(i)
		i.Spec.Audit.Log = &v1alpha1.AuditLogSpec{MaxBackups: ptr.To(maxBackups), MaxSize: ptr.To(maxSize)}
		if claim != "" {
			i.Spec.Audit.Log.Volume = &v1alpha1.AuditLogVolume{ClaimName: claim}
		}
	}
}

// backedUp backs the installation's managed etcd up on schedule.
func backedUp(schedule string) func(*v1alpha1.KcpInstallation) {
	return func(i *v1alpha1.KcpInstallation) {
		i.Spec.Etcd = &v1alpha1.InstallationEtcd{Managed: &v1alpha1.ManagedEtcd{Backup: &v1alpha1.ManagedEtcdBackup{
			Schedule: schedule, Volume: v1alpha1.ManagedEtcdBackupVolume{ClaimName: "backups"},
		}}}
	}
}

// inPlatform moves the installation into the platform's namespace.
func inPlatform(i *v1alpha1.KcpInstallation) { i.Namespace = "platform" }

func TestLimits(t *testing.T) {
	world := func(features, limits map[string]any) *testworld.World {
		return testworld.New().Answer(policyAnswered).Object(limitsPolicy(features, limits))
	}
	monitoring := map[string]any{"monitoring": []any{"tenant"}}
	audit := map[string]any{"auditLogs": []any{"tenant"}}
	const (
		scrape = "at least 30s for installations in namespace tenant (the platform's policy, EnvironmentConfig kcp-self-service, data.limits.monitoringInterval): every scrape of every pod loads the platform's Prometheus; scrape less often, leave interval unset for Prometheus' own, or ask the platform team to lower the limit"
		daily  = "at least 1h apart for installations in namespace tenant (the platform's policy, EnvironmentConfig kcp-self-service, data.limits.backupInterval): each snapshot writes the whole database to the platform's storage and runs a pod on its nodes; schedule fewer, or ask the platform team to lower the limit"
	)
	cases := map[string]struct {
		reason string
		inst   *v1alpha1.KcpInstallation
		world  *testworld.World
		want   []string
	}{
		"MonitoringWithoutPolicy": {
			reason: "PodMonitors load the platform's Prometheus: refused unless the platform allows monitoring, naming the field and the policy.",
			inst:   tenant(monitored("30s")),
			world:  testworld.New().Answer(policyAnswered),
			want:   []string{"spec.monitoring: Forbidden: monitoring is not allowed for installations in namespace tenant by the platform's policy (EnvironmentConfig kcp-self-service, data.features.monitoring); remove it, or ask the platform team to allow it there"},
		},
		"MonitoringAllowedElsewhere": {
			reason: "A rule for other namespaces does not allow this one; a refused feature is not bounded too.",
			inst:   tenant(monitored("1ms")),
			world:  world(map[string]any{"monitoring": []any{"team-b"}}, nil),
			want:   []string{"spec.monitoring: Forbidden: monitoring is not allowed for installations in namespace tenant"},
		},
		"MonitoringOff": {
			reason: "Monitoring turned off composes no PodMonitor: its interval asks for nothing.",
			inst:   tenant(func(i *v1alpha1.KcpInstallation) { i.Spec.Monitoring = &v1alpha1.Monitoring{Interval: "1ms"} }),
			world:  testworld.New().Answer(policyAnswered),
		},
		"PrometheusOwnInterval": {
			reason: "Without an interval Prometheus scrapes at its own.",
			inst:   tenant(monitored("")),
			world:  world(monitoring, nil),
		},
		"AtTheDefault": {
			reason: "30s is the default minimum.",
			inst:   tenant(monitored("30s")),
			world:  world(monitoring, nil),
		},
		"InDays": {
			reason: "Prometheus' own units: a day is a day.",
			inst:   tenant(monitored("1d")),
			world:  world(monitoring, nil),
		},
		"EveryMillisecond": {
			reason: "1ms would have the platform's Prometheus scrape every pod a thousand times a second.",
			inst:   tenant(monitored("1ms")),
			world:  world(monitoring, nil),
			want:   []string{`spec.monitoring.interval: Invalid value: "1ms": ` + scrape},
		},
		"JustBelow": {
			reason: "Compound durations are added up: 29s999ms is under 30s.",
			inst:   tenant(monitored("29s999ms")),
			world:  world(monitoring, nil),
			want:   []string{`spec.monitoring.interval: Invalid value: "29s999ms": ` + scrape},
		},
		"Zero": {
			reason: "0 is below every minimum; unset is how Prometheus' own interval is asked for.",
			inst:   tenant(monitored("0s")),
			world:  world(monitoring, nil),
			want:   []string{`spec.monitoring.interval: Invalid value: "0s": ` + scrape},
		},
		"PolicyLowersTheLimit": {
			reason: "The platform may allow faster scrapes.",
			inst:   tenant(monitored("15s")),
			world:  world(monitoring, map[string]any{"monitoringInterval": "10s"}),
		},
		"PolicyRaisesTheLimit": {
			reason: "Or fewer; the message says the platform's number.",
			inst:   tenant(monitored("1m")),
			world:  world(monitoring, map[string]any{"monitoringInterval": "1m30s"}),
			want:   []string{`spec.monitoring.interval: Invalid value: "1m": at least 1m30s for installations in namespace tenant`},
		},
		"NotADuration": {
			reason: "Go's 1.5h is no Prometheus duration: prometheus-operator would refuse the PodMonitor later, naming none of the installation's fields. Refused in the platform's namespace too.",
			inst:   tenant(monitored("1.5h"), inPlatform),
			world:  world(nil, nil),
			want:   []string{`spec.monitoring.interval: Invalid value: "1.5h": "1.5h" is not a Prometheus duration such as 30s, 1m30s or 1d`},
		},
		"MonitoringInAPlatformNamespace": {
			reason: "The platform's installations turn monitoring on without an allowance, at any rate.",
			inst:   tenant(monitored("1s"), inPlatform),
			world:  world(nil, nil),
		},
		"DefaultAuditLog": {
			reason: "The Helm chart's log, 250 MB files with one rotated kept, fills at most 750Mi: within the default 1Gi.",
			inst:   tenant(auditLogged),
			world:  world(audit, nil),
		},
		"AuditLogAtTheLimit": {
			reason: "Four files of 256 MB are exactly 1Gi.",
			inst:   tenant(auditFiles(2, 256, "")),
			world:  world(audit, nil),
		},
		"AuditLogJustOver": {
			reason: "Four of 257 MB are not.",
			inst:   tenant(auditFiles(2, 257, "")),
			world:  world(audit, nil),
			want:   []string{`spec.audit.log: Invalid value: "1028Mi": maxSize (257 MB) times maxBackups + 2 (4) fills an emptyDir of 1028Mi on the node's disk of every pod; at most 1Gi for installations in namespace tenant (the platform's policy, EnvironmentConfig kcp-self-service, data.limits.auditLogEmptyDir); lower maxSize or maxBackups, write the files to a claim of the namespace (volume.claimName), or ask the platform team to raise the limit`},
		},
		"AuditLogFillsTheNode": {
			reason: "The schema's largest, 1000 rotated files of 10 GiB, would be an emptyDir of 10,020 GiB on the node's disk.",
			inst:   tenant(auditFiles(1000, 10240, "")),
			world:  world(audit, nil),
			want:   []string{`spec.audit.log: Invalid value: "10020Gi": maxSize (10240 MB) times maxBackups + 2 (1002) fills an emptyDir of 10020Gi`},
		},
		"AuditLogOnAClaim": {
			reason: "A claim of the namespace is the team's own storage, which its ResourceQuota bounds.",
			inst:   tenant(auditFiles(1000, 10240, "audit")),
			world:  world(audit, nil),
		},
		"PolicyRaisesTheAuditLimit": {
			reason: "The platform may allow larger emptyDirs.",
			inst:   tenant(auditFiles(10, 1024, "")),
			world:  world(audit, map[string]any{"auditLogEmptyDir": "12Gi"}),
		},
		"PolicyAllowsOnlyClaims": {
			reason: "An emptyDir limit of 0 leaves claims the only place for audit files.",
			inst:   tenant(auditLogged),
			world:  world(audit, map[string]any{"auditLogEmptyDir": "0"}),
			want:   []string{`spec.audit.log: Invalid value: "750Mi": maxSize (250 MB) times maxBackups + 2 (3) fills an emptyDir of 750Mi on the node's disk of every pod; at most 0 for installations in namespace tenant`},
		},
		"AuditLogRefusedNotBounded": {
			reason: "An audit log the policy refuses is not bounded too: one error says to remove it.",
			inst:   tenant(auditFiles(1000, 10240, "")),
			world:  world(nil, nil),
			want:   []string{"spec.audit.log: Forbidden: an audit log is not allowed for installations in namespace tenant"},
		},
		"AuditLogInAPlatformNamespace": {
			reason: "The platform's own disks are its own to fill.",
			inst:   tenant(auditFiles(1000, 10240, ""), inPlatform),
			world:  world(nil, nil),
		},
		"BackupEveryMinute": {
			reason: "A snapshot every minute writes the whole database to the platform's storage 1440 times a day.",
			inst:   tenant(backedUp("* * * * *")),
			world:  world(nil, nil),
			want:   []string{`spec.etcd.managed.backup.schedule: Invalid value: "* * * * *": takes a snapshot as often as every 1m; ` + daily},
		},
		"BackupTwiceAnHour": {
			reason: "Two runs a minute apart count, however long the hour between them.",
			inst:   tenant(backedUp("0,1 * * * *")),
			world:  world(nil, nil),
			want:   []string{`spec.etcd.managed.backup.schedule: Invalid value: "0,1 * * * *": takes a snapshot as often as every 1m; ` + daily},
		},
		"BackupEvery": {
			reason: "robfig's @every, which the CronJob controller accepts, is a schedule like the others.",
			inst:   tenant(backedUp("@every 10m")),
			world:  world(nil, nil),
			want:   []string{`spec.etcd.managed.backup.schedule: Invalid value: "@every 10m": takes a snapshot as often as every 10m; ` + daily},
		},
		"BackupHourly": {
			reason: "Hourly is the default minimum.",
			inst:   tenant(backedUp("@hourly")),
			world:  world(nil, nil),
		},
		"BackupDefaultSchedule": {
			reason: "The default schedule, every six hours.",
			inst:   tenant(backedUp("")),
			world:  world(nil, nil),
		},
		"BackupOfAShard": {
			reason: "A shard's own managed etcd is bounded at its own field.",
			inst: tenant(func(i *v1alpha1.KcpInstallation) {
				i.Spec.Shards = []v1alpha1.InstallationShard{{Name: "alpha", ManagedEtcd: &v1alpha1.ManagedEtcd{Backup: &v1alpha1.ManagedEtcdBackup{
					Schedule: "*/5 * * * *", Volume: v1alpha1.ManagedEtcdBackupVolume{ClaimName: "backups"},
				}}}}
			}),
			world: world(nil, nil),
			want:  []string{`spec.shards[0].managedEtcd.backup.schedule: Invalid value: "*/5 * * * *": takes a snapshot as often as every 5m; ` + daily},
		},
		"PolicyWantsDailyBackups": {
			reason: "A platform limit above the default schedule's six hours holds the default too, naming the empty field.",
			inst:   tenant(backedUp("")),
			world:  world(nil, map[string]any{"backupInterval": "1d"}),
			want:   []string{`spec.etcd.managed.backup.schedule: Invalid value: "": takes a snapshot as often as every 6h; at least 1d apart for installations in namespace tenant`},
		},
		"BackupInAPlatformNamespace": {
			reason: "The platform's own storage is its own to load.",
			inst:   tenant(backedUp("* * * * *"), inPlatform),
			world:  world(nil, nil),
		},
		"EveryLimitAtOnce": {
			reason: "Each field is refused on its own, in the order of the spec.",
			inst:   tenant(monitored("1ms"), auditFiles(1000, 10240, ""), backedUp("* * * * *")),
			world:  world(map[string]any{"monitoring": []any{"*"}, "auditLogs": []any{"*"}}, nil),
			want: []string{
				`spec.monitoring.interval: Invalid value: "1ms"`,
				`spec.audit.log: Invalid value: "10020Gi"`,
				`spec.etcd.managed.backup.schedule: Invalid value: "* * * * *"`,
			},
		},
		"UnreadableLimits": {
			reason: "Limits the function cannot read refuse every installation, rather than the defaults replacing what the platform wrote.",
			inst:   tenant(),
			world:  world(nil, map[string]any{"monitoringInterval": "1.5h"}),
			want:   []string{`spec.certificates.issuerRef: Forbidden: the platform's policy (EnvironmentConfig kcp-self-service, data.limits) cannot be read: monitoringInterval: "1.5h" is not a Prometheus duration`},
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			r, errs := Compose(tc.inst, tc.world.State(), noValidation)
			got := make([]string, 0, len(errs))
			for i, e := range errs {
				msg := e.Error()
				if i < len(tc.want) && strings.HasPrefix(msg, tc.want[i]) {
					msg = tc.want[i] // the case wants only the beginning
				}
				got = append(got, msg)
			}
			if diff := cmp.Diff(tc.want, got, cmpopts.EquateEmpty()); diff != "" {
				t.Errorf("%s\nCompose(...) errors: -want, +got:\n%s", tc.reason, diff)
			}
			if len(errs) > 0 && len(r.Desired.Objects()) > 0 {
				t.Errorf("%s\nCompose(...): refused but desired %d objects", tc.reason, len(r.Desired.Objects()))
			}
		})
	}
}

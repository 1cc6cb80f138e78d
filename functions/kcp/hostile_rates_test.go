package main

import (
	"strings"
	"testing"

	fnv1 "github.com/crossplane/function-sdk-go/proto/v1"
	"google.golang.org/protobuf/proto"

	"github.com/configuration-kcp/configuration-kcp/functions/kcp/internal/compose/policy"
	"github.com/configuration-kcp/configuration-kcp/test/fnrequest"
)

// ratesRunning is team a's running installation before the hostile edits: monitored every
// 30s, audit files in the Helm chart's emptyDir, its managed etcd backed up every six hours.
const ratesRunning = `, "monitoring": {"enabled": true, "interval": "30s"},
	"audit": {"policy": {"configMap": {"name": "audit", "key": "policy.yaml"}}, "log": {}},
	"etcd": {"managed": {"backup": {"schedule": "0 */6 * * *", "volume": {"claimName": "backups"}}}}`

// ratesPolicy allows team-a monitoring and audit logs, and sets no limits: the defaults hold.
var ratesPolicy = map[string]any{"apiVersion": policy.APIVersion, "kind": policy.Kind, "metadata": map[string]any{"name": policy.Name},
	"data": map[string]any{"features": map[string]any{"monitoring": []any{"team-a"}, "auditLogs": []any{"team-a"}}}}

// TestHostileRatesKeepWhatRuns drives, through RunFunction with the real table of kinds, the
// edits with which a team would spend what every team shares: the platform's Prometheus
// (spec.monitoring), its nodes' disks (spec.audit.log) and its storage
// (spec.etcd.managed.backup). Who sets them: whoever writes the KcpInstallation, a team with
// edit in its namespace, or the platform through a claim. Largest: an interval of any
// Prometheus duration, 1000 audit files of 10 GiB, a snapshot every minute. No ResourceQuota
// of the namespace counts them, so the platform's policy bounds them (data.limits, defaults
// 30s, 1Gi and 1h); monitoring is a feature the policy allows (data.features.monitoring).
// None widens a certificate or an identity. Each edit is refused with a Fatal result naming
// the field, the bound and the policy field, and desires nothing: what runs is kept.
func TestHostileRatesKeepWhatRuns(t *testing.T) {
	fn := func(req *fnv1.RunFunctionRequest) (*fnv1.RunFunctionResponse, error) { return run(t, req), nil }
	allowed, err := fnrequest.ConvergedAnswered(fn, hostileXR(ratesRunning), ratesPolicy)
	if err != nil {
		t.Fatal(err)
	}
	unlisted, err := fnrequest.ConvergedAnswered(fn, hostileXR(""))
	if err != nil {
		t.Fatal(err)
	}
	for name, r := range map[string]*fnv1.RunFunctionRequest{"allowed": allowed, "unlisted": unlisted} {
		if len(r.GetObserved().GetResources()) == 0 {
			t.Fatalf("the %s installation composed nothing before the edit", name)
		}
	}
	const (
		scrape = "at least 30s for installations in namespace team-a (the platform's policy, EnvironmentConfig kcp-self-service, data.limits.monitoringInterval)"
		disk   = "at most 1Gi for installations in namespace team-a (the platform's policy, EnvironmentConfig kcp-self-service, data.limits.auditLogEmptyDir)"
		backup = "at least 1h apart for installations in namespace team-a (the platform's policy, EnvironmentConfig kcp-self-service, data.limits.backupInterval)"
	)
	cases := map[string]struct {
		reason string
		// unlisted runs the edit on an installation in a namespace the policy lists for no
		// feature.
		unlisted bool
		spec     string
		want     []string // substrings of the Fatal result
	}{
		"MonitoringWithoutTheFeature": {
			reason:   "PodMonitors load the platform's Prometheus: a namespace the policy does not list may not turn them on.",
			unlisted: true,
			spec:     `, "monitoring": {"enabled": true, "interval": "30s"}`,
			want:     []string{`spec.monitoring: Forbidden: monitoring is not allowed for installations in namespace team-a by the platform's policy (EnvironmentConfig kcp-self-service, data.features.monitoring)`},
		},
		"ScrapeEveryMillisecond": {
			reason: "1ms: the platform's Prometheus would scrape every kcp, front-proxy and etcd pod a thousand times a second.",
			spec:   `, "monitoring": {"enabled": true, "interval": "1ms"}`,
			want:   []string{`spec.monitoring.interval: Invalid value: "1ms": ` + scrape},
		},
		"ScrapeAtZero": {
			reason: "0s is below every minimum.",
			spec:   `, "monitoring": {"enabled": true, "interval": "0s"}`,
			want:   []string{`spec.monitoring.interval: Invalid value: "0s": ` + scrape},
		},
		"ScrapeJustUnderTheBound": {
			reason: "Units add up: 29s999ms is a millisecond short.",
			spec:   `, "monitoring": {"enabled": true, "interval": "29s999ms"}`,
			want:   []string{`spec.monitoring.interval: Invalid value: "29s999ms": ` + scrape},
		},
		"ScrapeTimeoutBesideAFastInterval": {
			reason: "The schema has no scrapeTimeout: it is dropped, and the interval beside it is refused.",
			spec:   `, "monitoring": {"enabled": true, "interval": "1ms", "scrapeTimeout": "1ms"}`,
			want:   []string{`spec.monitoring.interval: Invalid value: "1ms"`},
		},
		"IntervalOutOfRange": {
			reason: "A duration Go cannot hold, from a client that skipped the schema's pattern.",
			spec:   `, "monitoring": {"enabled": true, "interval": "99999999999999999999s"}`,
			want:   []string{`spec.monitoring.interval: Invalid value: "99999999999999999999s": "99999999999999999999s" is not a Prometheus duration`},
		},
		"IntervalOfGo": {
			reason: "Go's 1.5h is no Prometheus duration: prometheus-operator would refuse the PodMonitor, naming none of the installation's fields.",
			spec:   `, "monitoring": {"enabled": true, "interval": "1.5h"}`,
			want:   []string{`spec.monitoring.interval: Invalid value: "1.5h"`},
		},
		"AuditFilesFillTheNode": {
			reason: "1000 rotated files of 10 GiB: an emptyDir of 10,020 GiB on the node's disk of every kcp pod.",
			spec:   `, "audit": {"policy": {"configMap": {"name": "audit", "key": "policy.yaml"}}, "log": {"maxBackups": 1000, "maxSize": 10240}}`,
			want:   []string{`spec.audit.log: Invalid value: "10020Gi": maxSize (10240 MB) times maxBackups + 2 (1002) fills an emptyDir of 10020Gi on the node's disk of every pod; ` + disk},
		},
		"AuditFilesJustOver": {
			reason: "Four files of 257 MB are 4 MiB over 1Gi.",
			spec:   `, "audit": {"policy": {"configMap": {"name": "audit", "key": "policy.yaml"}}, "log": {"maxBackups": 2, "maxSize": 257}}`,
			want:   []string{`spec.audit.log: Invalid value: "1028Mi"`, disk},
		},
		"AuditEmptyDirOfItsOwn": {
			reason: "The schema offers a claim only: an emptyDir with a sizeLimit of its own is dropped, and the volume left naming no claim is refused, not made an emptyDir of any size.",
			spec:   `, "audit": {"policy": {"configMap": {"name": "audit", "key": "policy.yaml"}}, "log": {"volume": {"emptyDir": {"sizeLimit": "10Ti"}}}}`,
			want:   []string{`spec.audit.log.volume.claimName: Required value`},
		},
		"AuditLogWithoutTheFeature": {
			reason:   "Without the allowance the audit log is refused whole, not bounded.",
			unlisted: true,
			spec:     `, "audit": {"policy": {"configMap": {"name": "audit", "key": "policy.yaml"}}, "log": {"maxBackups": 1000, "maxSize": 10240}}`,
			want:     []string{`spec.audit.log: Forbidden: an audit log is not allowed for installations in namespace team-a`},
		},
		"BackupEveryMinute": {
			reason: "A snapshot of the whole database every minute, written to the platform's storage, and a pod a minute on its nodes.",
			spec:   `, "etcd": {"managed": {"backup": {"schedule": "* * * * *", "volume": {"claimName": "backups"}}}}`,
			want:   []string{`spec.etcd.managed.backup.schedule: Invalid value: "* * * * *": takes a snapshot as often as every 1m; ` + backup},
		},
		"BackupTwiceAtMidnight": {
			reason: "23:59 and 00:00: a minute apart across midnight, though a day apart otherwise.",
			spec:   `, "etcd": {"managed": {"backup": {"schedule": "0,59 0,23 * * *", "volume": {"claimName": "backups"}}}}`,
			want:   []string{`spec.etcd.managed.backup.schedule: Invalid value: "0,59 0,23 * * *": takes a snapshot as often as every 1m`},
		},
		"BackupEverySecond": {
			reason: "robfig's @every, which the CronJob controller accepts, in seconds.",
			spec:   `, "etcd": {"managed": {"backup": {"schedule": "@every 1s", "volume": {"claimName": "backups"}}}}`,
			want:   []string{`spec.etcd.managed.backup.schedule: Invalid value: "@every 1s": takes a snapshot as often as every 1s`},
		},
		"ShardBackupEveryFiveMinutes": {
			reason: "A shard's own managed etcd is bounded at its own field.",
			spec:   `, "shards": [{"name": "alpha", "managedEtcd": {"backup": {"schedule": "*/5 * * * *", "volume": {"claimName": "backups"}}}}]`,
			want:   []string{`spec.shards[0].managedEtcd.backup.schedule: Invalid value: "*/5 * * * *": takes a snapshot as often as every 5m`},
		},
		"EverythingAtOnce": {
			reason: "Every field is named, each with its own bound.",
			spec: `, "monitoring": {"enabled": true, "interval": "1ms"},
				"audit": {"policy": {"configMap": {"name": "audit", "key": "policy.yaml"}}, "log": {"maxBackups": 1000, "maxSize": 10240}},
				"etcd": {"managed": {"backup": {"schedule": "* * * * *", "volume": {"claimName": "backups"}}}}`,
			want: []string{`spec.monitoring.interval: Invalid value: "1ms"`, `spec.audit.log: Invalid value: "10020Gi"`, `spec.etcd.managed.backup.schedule: Invalid value: "* * * * *"`},
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			running := allowed
			if tc.unlisted {
				running = unlisted
			}
			req := proto.Clone(running).(*fnv1.RunFunctionRequest)
			req.Observed.Composite = &fnv1.Resource{Resource: fnrequest.StructJSON(hostileXR(tc.spec))}
			observedBefore := proto.Clone(req.GetObserved()).(*fnv1.State)
			rsp := run(t, req)
			checkRefused(t, tc.reason, req, observedBefore, rsp, tc.want)
		})
	}
}

// TestScrapeTimeoutIsDropped: the schema has no scrapeTimeout, so a client that sends one
// anyway changes nothing: the installation composes as it did, and no PodMonitor scrapes
// with a timeout of the team's.
func TestScrapeTimeoutIsDropped(t *testing.T) {
	fn := func(req *fnv1.RunFunctionRequest) (*fnv1.RunFunctionResponse, error) { return run(t, req), nil }
	running, err := fnrequest.ConvergedAnswered(fn, hostileXR(ratesRunning), ratesPolicy)
	if err != nil {
		t.Fatal(err)
	}
	req := proto.Clone(running).(*fnv1.RunFunctionRequest)
	req.Observed.Composite = &fnv1.Resource{Resource: fnrequest.StructJSON(hostileXR(strings.Replace(ratesRunning, `"interval": "30s"`, `"interval": "30s", "scrapeTimeout": "1ms"`, 1)))}
	rsp := run(t, req)
	for _, r := range rsp.GetResults() {
		if r.GetSeverity() == fnv1.Severity_SEVERITY_FATAL {
			t.Fatalf("an unknown field is dropped, not refused: %s", r.GetMessage())
		}
	}
	if len(rsp.GetDesired().GetResources()) == 0 {
		t.Fatal("the installation composed nothing")
	}
	for name, r := range rsp.GetDesired().GetResources() {
		if b, err := r.GetResource().MarshalJSON(); err != nil || strings.Contains(string(b), "scrapeTimeout") || strings.Contains(string(b), `"1ms"`) {
			t.Errorf("desired %s carries the team's scrapeTimeout (or cannot be read: %v)", name, err)
		}
	}
}

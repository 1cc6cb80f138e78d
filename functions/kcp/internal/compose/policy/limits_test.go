package policy

import (
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"k8s.io/apimachinery/pkg/api/resource"

	"github.com/configuration-kcp/configuration-kcp/functions/kcp/internal/core/observed"
)

// quantities compares resource.Quantity by value.
var quantities = cmp.Comparer(func(a, b resource.Quantity) bool { return a.Cmp(b) == 0 })

func TestReadLimits(t *testing.T) {
	q := func(s string) *resource.Quantity { v := resource.MustParse(s); return &v }
	cases := map[string]struct {
		reason string
		data   map[string]any
		want   Limits
		err    bool
	}{
		"None": {
			reason: "No data.limits: the defaults apply (Bounds).",
			data:   map[string]any{},
		},
		"Every": {
			reason: "Each limit is read as written.",
			data:   map[string]any{"limits": map[string]any{"monitoringInterval": "1m30s", "auditLogEmptyDir": "4Gi", "backupInterval": "1d"}},
			want:   Limits{MonitoringInterval: "1m30s", AuditLogEmptyDir: q("4Gi"), BackupInterval: "1d"},
		},
		"SizeAsANumber": {
			reason: "A size may be a number of bytes, as Kubernetes quantities may.",
			data:   map[string]any{"limits": map[string]any{"auditLogEmptyDir": 1073741824}},
			want:   Limits{AuditLogEmptyDir: q("1Gi")},
		},
		"GoDuration": {
			reason: "1.5h is Go's, not Prometheus': the policy cannot be read, rather than the default replacing it.",
			data:   map[string]any{"limits": map[string]any{"monitoringInterval": "1.5h"}},
			err:    true,
		},
		"UnitsOutOfOrder": {
			reason: "Prometheus wants the largest unit first.",
			data:   map[string]any{"limits": map[string]any{"backupInterval": "30m1h"}},
			err:    true,
		},
		"NegativeSize": {
			reason: "A negative size bounds nothing the platform could mean.",
			data:   map[string]any{"limits": map[string]any{"auditLogEmptyDir": "-1Gi"}},
			err:    true,
		},
		"NotASize": {
			reason: "A size that is not a quantity.",
			data:   map[string]any{"limits": map[string]any{"auditLogEmptyDir": "lots"}},
			err:    true,
		},
		"MonitoringFeature": {
			reason: "data.features.monitoring is read beside the limits.",
			data:   map[string]any{"features": map[string]any{"monitoring": []any{"team-a"}}},
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			st := observed.New(nil)
			st.Answer(Requirement.Key())
			st.WithObject(map[string]any{"apiVersion": APIVersion, "kind": Kind, "metadata": map[string]any{"name": Name}, "data": tc.data})
			got, known, err := Read(st)
			if !known || (err != nil) != tc.err {
				t.Fatalf("%s\nRead: known %v, err %v; want an error %v", tc.reason, known, err, tc.err)
			}
			if diff := cmp.Diff(tc.want, got.Limits, quantities); diff != "" {
				t.Errorf("%s\nRead(...).Limits: -want, +got:\n%s", tc.reason, diff)
			}
		})
	}
}

func TestMonitoringFeature(t *testing.T) {
	p := Policy{Features: AllowedFeatures{Monitoring: []string{"team-a"}, AuditLogs: []string{"*"}}, PlatformNamespaces: []string{"platform"}}
	cases := map[string]struct {
		reason    string
		namespace string
		want      bool
	}{
		"Listed":   {reason: "A listed namespace may turn monitoring on.", namespace: "team-a", want: true},
		"Unlisted": {reason: "Another may not, even where every namespace may write audit logs.", namespace: "team-b"},
		"Platform": {reason: "The platform's namespace may turn on every feature.", namespace: "platform", want: true},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			if got := p.AllowsFeature(tc.namespace, FeatureMonitoring); got != tc.want {
				t.Errorf("%s\nAllowsFeature(%q, monitoring) = %v, want %v", tc.reason, tc.namespace, got, tc.want)
			}
		})
	}
}

func TestBounds(t *testing.T) {
	defaults := Bounds{MonitoringInterval: 30 * time.Second, AuditLogEmptyDir: resource.MustParse("1Gi"), BackupInterval: time.Hour}
	zero := resource.MustParse("0")
	cases := map[string]struct {
		reason    string
		limits    Limits
		namespace string
		want      Bounds
		bounded   bool
	}{
		"Defaults": {
			reason:    "A policy that says nothing bounds a tenant by the defaults.",
			namespace: "team-a",
			want:      defaults,
			bounded:   true,
		},
		"PolicySaysSo": {
			reason:    "The platform's limits replace the defaults, each on its own.",
			limits:    Limits{MonitoringInterval: "15s", BackupInterval: "1w"},
			namespace: "team-a",
			want:      Bounds{MonitoringInterval: 15 * time.Second, AuditLogEmptyDir: resource.MustParse("1Gi"), BackupInterval: 7 * 24 * time.Hour},
			bounded:   true,
		},
		"NoMinimum": {
			reason:    `"0" lifts a minimum; an emptyDir of 0 leaves only claims for audit files.`,
			limits:    Limits{MonitoringInterval: "0", AuditLogEmptyDir: &zero, BackupInterval: "0"},
			namespace: "team-a",
			want:      Bounds{AuditLogEmptyDir: zero},
			bounded:   true,
		},
		"PlatformNamespace": {
			reason:    "The platform's own installations are not bounded: it pays for what it spends.",
			limits:    Limits{MonitoringInterval: "5m"},
			namespace: "platform",
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			p := Policy{Limits: tc.limits, PlatformNamespaces: []string{"platform"}}
			got, bounded := p.Bounds(tc.namespace)
			if bounded != tc.bounded {
				t.Errorf("%s\nBounds(%q): bounded %v, want %v", tc.reason, tc.namespace, bounded, tc.bounded)
			}
			if diff := cmp.Diff(tc.want, got, quantities); diff != "" {
				t.Errorf("%s\nBounds(%q): -want, +got:\n%s", tc.reason, tc.namespace, diff)
			}
		})
	}
}

func TestParseDuration(t *testing.T) {
	type want struct {
		d   time.Duration
		err bool
	}
	cases := map[string]struct {
		reason string
		in     string
		want   want
	}{
		"Zero":         {reason: "Prometheus takes 0 without a unit.", in: "0", want: want{}},
		"ZeroSeconds":  {reason: "0s is zero too.", in: "0s", want: want{}},
		"Milliseconds": {reason: "ms is a unit of its own, not minutes and seconds.", in: "1ms", want: want{d: time.Millisecond}},
		"Compound":     {reason: "Units combine, largest first.", in: "1m30s", want: want{d: 90 * time.Second}},
		"Hour":         {reason: "An hour.", in: "1h", want: want{d: time.Hour}},
		"Day":          {reason: "Prometheus has days, Go does not.", in: "1d", want: want{d: 24 * time.Hour}},
		"Week":         {reason: "And weeks.", in: "2w", want: want{d: 14 * 24 * time.Hour}},
		"Year":         {reason: "And years of 365 days.", in: "1y", want: want{d: 365 * 24 * time.Hour}},
		"Everything":   {reason: "Every unit at once.", in: "1y1w1d1h1m1s1ms", want: want{d: (365+7+1)*24*time.Hour + time.Hour + time.Minute + time.Second + time.Millisecond}},
		"NoUnit":       {reason: "Only 0 may omit its unit.", in: "30", want: want{err: true}},
		"Fraction":     {reason: "No fractions.", in: "1.5h", want: want{err: true}},
		"Negative":     {reason: "No negative durations.", in: "-1s", want: want{err: true}},
		"OutOfOrder":   {reason: "The largest unit first.", in: "30s1m", want: want{err: true}},
		"Repeated":     {reason: "Each unit once.", in: "1s1s", want: want{err: true}},
		"Overflow":     {reason: "Beyond 292 years.", in: "300y", want: want{err: true}},
		"Empty":        {reason: "Nothing is no duration.", in: "", want: want{err: true}},
		"Microseconds": {reason: "Go's us is not Prometheus'.", in: "5us", want: want{err: true}},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			d, err := ParseDuration(tc.in)
			if diff := cmp.Diff(tc.want, want{d: d, err: err != nil}, cmp.AllowUnexported(want{})); diff != "" {
				t.Errorf("%s\nParseDuration(%q): -want, +got (err %v):\n%s", tc.reason, tc.in, err, diff)
			}
		})
	}
}

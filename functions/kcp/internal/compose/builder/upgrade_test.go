package builder

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/configuration-kcp/configuration-kcp/apis/v1alpha1"
	"github.com/configuration-kcp/configuration-kcp/functions/kcp/internal/core/condition"
	"github.com/configuration-kcp/configuration-kcp/functions/kcp/internal/core/observed"
	"github.com/configuration-kcp/configuration-kcp/functions/kcp/internal/core/resource"
)

// runningDeployment is an observed Deployment of image; rolledOut says whether every replica
// is updated and available.
func runningDeployment(image string, rolledOut bool) map[string]any {
	updated := int64(1)
	if !rolledOut {
		updated = 0
	}
	return map[string]any{
		"apiVersion": "apps/v1", "kind": "Deployment",
		"metadata": map[string]any{"generation": int64(2)},
		"spec": map[string]any{"replicas": int64(1), "template": map[string]any{"spec": map[string]any{
			"containers": []any{map[string]any{"name": "kcp", "image": image}, map[string]any{"name": "sidecar", "image": "other:1"}},
		}}},
		"status": map[string]any{"observedGeneration": int64(2), "replicas": int64(1), "updatedReplicas": updated, "availableReplicas": int64(1),
			"conditions": []any{map[string]any{"type": "Available", "status": "True"}}},
	}
}

func deploymentState(d map[string]any) *observed.State {
	if d == nil {
		return observedState(nil)
	}
	return observedState(map[resource.Name]map[string]any{"deployment-kcp": d})
}

func TestRunningImage(t *testing.T) {
	cases := map[string]struct {
		reason     string
		deployment map[string]any
		proxy      map[string]any
		with       []resource.Name
		previous   string
		want       string
	}{
		"RolledOut":  {reason: "A Deployment rolled out to an image runs it: its first container's.", deployment: runningDeployment("kcp:v2", true), previous: "kcp:v1", want: "kcp:v2"},
		"RollingOut": {reason: "While a rollout is under way the previous image still serves.", deployment: runningDeployment("kcp:v2", false), previous: "kcp:v1", want: "kcp:v1"},
		"NotCreated": {reason: "Before the Deployment exists nothing runs.", want: ""},
		"CompanionRollingOut": {
			reason:     "A RootShard runs the new release only once its internal proxy has rolled out too: its Shards and FrontProxies wait for both.",
			deployment: runningDeployment("kcp:v2", true), proxy: runningDeployment("kcp:v2", false), with: []resource.Name{"deployment-proxy"},
			previous: "kcp:v1", want: "kcp:v1",
		},
		"CompanionRolledOut": {
			reason:     "Once the companion has rolled out as well, the component runs the new image.",
			deployment: runningDeployment("kcp:v2", true), proxy: runningDeployment("kcp:v2", true), with: []resource.Name{"deployment-proxy"},
			previous: "kcp:v1", want: "kcp:v2",
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			objs := map[resource.Name]map[string]any{}
			if tc.deployment != nil {
				objs["deployment-kcp"] = tc.deployment
			}
			if tc.proxy != nil {
				objs["deployment-proxy"] = tc.proxy
			}
			b := New("x", "ns", observedState(objs))
			if got := b.RunningImage("deployment-kcp", tc.previous, tc.with...); got != tc.want {
				t.Errorf("%s\nRunningImage(...) = %q, want %q", tc.reason, got, tc.want)
			}
		})
	}
}

func TestImageFor(t *testing.T) {
	v2 := &v1alpha1.ImageSpec{Repository: "kcp", Tag: "v2", ImagePullSecrets: nil}
	leader := func(image string) Leader { return Leader{Kind: "RootShard", Name: "root", Image: image} }
	cases := map[string]struct {
		reason     string
		deployment map[string]any
		leader     Leader
		want       *v1alpha1.ImageSpec
		cond       condition.Condition
	}{
		"New": {
			reason: "A Deployment that does not exist yet starts on the spec's image.",
			leader: leader(""), want: v2,
			cond: condition.Condition{Type: condition.TypeUpgraded, Status: true, Reason: condition.ReasonImageComposed, Message: "The Deployment is composed with the image spec.image names (kcp:v2)."},
		},
		"LeaderAhead": {
			reason:     "Once the leader runs the new image, the follower rolls out to it.",
			deployment: runningDeployment("kcp:v1", true), leader: leader("kcp:v2"), want: v2,
			cond: condition.Condition{Type: condition.TypeUpgraded, Status: true, Reason: condition.ReasonImageComposed, Message: "The Deployment is composed with the image spec.image names (kcp:v2)."},
		},
		"LeaderBehind": {
			reason:     "A follower keeps the image it runs while its leader does not run the new one (kcp#4032), and is not ready.",
			deployment: runningDeployment("kcp:v1", true), leader: leader("kcp:v1"), want: &v1alpha1.ImageSpec{Repository: "kcp", Tag: "v1"},
			cond: condition.Condition{Type: condition.TypeUpgraded, Reason: condition.ReasonWaitingForLeader, Message: `kcp:v2 waits until RootShard root runs it (its status.image is "kcp:v1"): kcp rolls out the root shard first. The Deployment keeps kcp:v1 meanwhile.`},
		},
		"Digest": {
			reason:     "An image by digest cannot be written back into spec.image: the follower is not held.",
			deployment: runningDeployment("kcp@sha256:abc", true), leader: leader("kcp:v1"), want: v2,
			cond: condition.Condition{Type: condition.TypeUpgraded, Status: true, Reason: condition.ReasonImageComposed, Message: "The Deployment is composed with the image spec.image names (kcp:v2)."},
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			b := New("x", "ns", deploymentState(tc.deployment))
			got := b.ImageFor("deployment-kcp", v2, tc.leader)
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("%s\nImageFor(...): -want, +got:\n%s", tc.reason, diff)
			}
			if diff := cmp.Diff(tc.cond, *b.upgraded); diff != "" {
				t.Errorf("%s\nUpgraded condition: -want, +got:\n%s", tc.reason, diff)
			}
			if b.NotReady() != !tc.cond.Status {
				t.Errorf("%s\nNotReady() = %v, want %v", tc.reason, b.NotReady(), !tc.cond.Status)
			}
		})
	}
}

func TestCheckDowngrade(t *testing.T) {
	cases := map[string]struct {
		reason string
		runs   string
		tag    string
		policy *v1alpha1.UpgradePolicy
		want   string
	}{
		"Upgrade":     {reason: "A newer kcp is an upgrade.", runs: "kcp:v0.32.3", tag: "v0.33.0"},
		"Same":        {reason: "The same kcp is no change.", runs: "kcp:v0.32.3", tag: "v0.32.3"},
		"Downgrade":   {reason: "An older kcp is refused, naming the field that allows it.", runs: "kcp:v0.32.3", tag: "v0.32.1", want: "spec.image.tag: Forbidden: v0.32.1 is older than v0.32.3, which runs: kcp migrates its stored data forward only, so a downgrade can break it; set spec.upgrade.allowDowngrade: true to downgrade anyway"},
		"Allowed":     {reason: "A downgrade the user allows passes.", runs: "kcp:v0.32.3", tag: "v0.32.1", policy: &v1alpha1.UpgradePolicy{AllowDowngrade: true}},
		"NotSemver":   {reason: "Tags that are not versions cannot be ordered.", runs: "kcp:main", tag: "v0.32.1"},
		"NothingRuns": {reason: "Without a Deployment nothing can be downgraded.", tag: "v0.1.0"},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			var d map[string]any
			if tc.runs != "" {
				d = runningDeployment(tc.runs, true)
			}
			b := New("x", "ns", deploymentState(d))
			err := b.CheckDowngrade("deployment-kcp", &v1alpha1.ImageSpec{Repository: "kcp", Tag: tc.tag}, tc.policy, field.NewPath("spec", "image", "tag"), field.NewPath("spec", "upgrade"))
			got := ""
			if err != nil {
				got = err.Error()
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("%s\nCheckDowngrade(...): -want, +got:\n%s", tc.reason, diff)
			}
		})
	}
}

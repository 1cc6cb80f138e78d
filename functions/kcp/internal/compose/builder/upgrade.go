package builder

import (
	"fmt"

	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/configuration-kcp/configuration-kcp/apis/v1alpha1"
	"github.com/configuration-kcp/configuration-kcp/functions/kcp/internal/core/condition"
	"github.com/configuration-kcp/configuration-kcp/functions/kcp/internal/core/resource"
	"github.com/configuration-kcp/configuration-kcp/functions/kcp/internal/kcpimage"
	"github.com/configuration-kcp/configuration-kcp/functions/kcp/internal/kcpversion"
)

// RunningImage is a component's status.image: the image its Deployment (key) runs once the
// Deployment, and each Deployment of with (a RootShard's internal proxy), has rolled out,
// else previous (the XR's status.image as observed), which names the image still serving
// while a rollout is under way. Components that depend on this one compare it with their
// own spec.image, so they move on only once the whole component runs the new release.
func (b *Builder) RunningImage(key resource.Name, previous string, with ...resource.Name) string {
	for _, k := range append([]resource.Name{key}, with...) {
		if !b.St.DeploymentAvailable(k) {
			return previous
		}
	}
	if img := b.St.DeploymentImage(key); img != "" {
		return img
	}
	return previous
}

// Leader is the component a Deployment's new kcp waits for: the RootShard of a Shard or a
// FrontProxy, the target of a VirtualWorkspace.
type Leader struct {
	Kind, Name string
	// Image is the leader's status.image: what all its replicas run.
	Image string
}

// ImageFor returns the image a component's Deployment (key) is built with when its spec
// names want: want, unless the Deployment runs another image and the leader does not run
// want yet. Then the Deployment keeps the image it runs until the leader has rolled out
// (kcp#4032: a shard that starts a newer kcp than its root shard crash-loops), and the XR
// is not ready. A new Deployment starts on want: nothing runs that could break. Either way
// the Upgraded condition, reported after Available, says which.
func (b *Builder) ImageFor(key resource.Name, want *v1alpha1.ImageSpec, leader Leader) *v1alpha1.ImageSpec {
	target := kcpimage.Resolve(want)
	runs := b.St.DeploymentImage(key)
	held, parsed := kcpimage.Parse(runs)
	if runs == "" || runs == target.String() || leader.Image == target.String() || !parsed {
		b.upgraded = &condition.Condition{Type: condition.TypeUpgraded, Status: true, Reason: condition.ReasonImageComposed,
			Message: fmt.Sprintf("The Deployment is composed with the image spec.image names (%s).", target)}
		return want
	}
	b.notReady = true
	b.upgraded = &condition.Condition{Type: condition.TypeUpgraded, Reason: condition.ReasonWaitingForLeader,
		Message: fmt.Sprintf("%s waits until %s %s runs it (its status.image is %q): kcp rolls out the root shard first. The Deployment keeps %s meanwhile.",
			target, leader.Kind, leader.Name, leader.Image, runs)}
	out := v1alpha1.ImageSpec{Repository: held.Repository, Tag: held.Tag}
	if want != nil {
		out.ImagePullSecrets = want.ImagePullSecrets
	}
	return &out
}

// CheckDowngrade refuses a spec.image (at fld) whose tag is an older kcp than the one the
// Deployment (key) runs, unless the policy allows it: kcp migrates stored data forward only.
// Tags that are not semantic versions cannot be ordered and pass.
func (b *Builder) CheckDowngrade(key resource.Name, want *v1alpha1.ImageSpec, policy *v1alpha1.UpgradePolicy, fld, policyField *field.Path) *field.Error {
	runs, ok := kcpimage.Parse(b.St.DeploymentImage(key))
	if !ok || policy.AllowsDowngrade() {
		return nil
	}
	return Downgrade(runs.Tag, kcpimage.Resolve(want).Tag, fld, policyField)
}

// Downgrade is the error for a change from tag from to tag to that goes back in kcp's
// versions, or nil.
func Downgrade(from, to string, fld, policyField *field.Path) *field.Error {
	old, ok1 := kcpversion.Parse(from)
	next, ok2 := kcpversion.Parse(to)
	if !ok1 || !ok2 || !next.Less(old) {
		return nil
	}
	return field.Forbidden(fld, fmt.Sprintf("%s is older than %s, which runs: kcp migrates its stored data forward only, so a downgrade can break it; set %s: true to downgrade anyway", to, from, policyField.Child("allowDowngrade")))
}

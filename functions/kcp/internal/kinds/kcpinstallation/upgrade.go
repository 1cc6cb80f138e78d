package kcpinstallation

import (
	"fmt"
	"slices"

	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/configuration-kcp/configuration-kcp/apis/v1alpha1"
	"github.com/configuration-kcp/configuration-kcp/functions/kcp/internal/compose/builder"
	"github.com/configuration-kcp/configuration-kcp/functions/kcp/internal/core/observed"
	"github.com/configuration-kcp/configuration-kcp/functions/kcp/internal/kcpimage"
)

// upgradeSteps orders an upgrade by kind: the root shard first; then the shards, the cache
// server and the virtual workspace servers, which read from it and crash-loop when they
// start a newer kcp than it runs (kcp#4032); then the front-proxies, which route to all of
// them. A kind not listed (the admin Kubeconfig) runs no kcp.
var upgradeSteps = []upgradeStep{
	{v1alpha1.UpgradeStepRootShard, []string{v1alpha1.KindRootShard}},
	{v1alpha1.UpgradeStepShards, []string{v1alpha1.KindShard, v1alpha1.KindCacheServer, v1alpha1.KindVirtualWorkspace}},
	{v1alpha1.UpgradeStepFrontProxies, []string{v1alpha1.KindFrontProxy}},
}

type upgradeStep struct {
	step  v1alpha1.UpgradeStep
	kinds []string
}

// member is a child that runs kcp, as the upgrade sees it.
type member struct {
	child  *child
	server v1alpha1.KcpServer
	step   int
	// exists is whether the child XR exists; running is its status.image (what every
	// replica runs, "" before its first rollout); current is running, or before the first
	// rollout the image its spec names.
	exists           bool
	running, current string
	// spec is the image its observed spec names.
	spec *v1alpha1.ImageSpec
}

// planUpgrade rolls a change of spec.image out in kcp's order. Every child is built with
// spec.image; while some child runs another image, the children of the steps after the
// first unfinished one are composed with the image they run, until every child of that step
// runs the new one. A step that fails (a rollout Kubernetes gives up on, a shard that does
// not come up) stops the upgrade there, the later steps still on what they ran, and status
// says what it waits for. It returns the upgrade's status (nil when none is under way) and
// the image every child runs ("" while they differ). A downgrade never gets here: the
// refusal downgrade refuses it first.
func planUpgrade(inst *v1alpha1.KcpInstallation, members []member, st *observed.State) (*v1alpha1.InstallationUpgrade, string) {
	target := kcpimage.Resolve(inst.Spec.Image).String()
	upgrading := false
	from := ""
	for _, m := range members {
		if m.exists && m.current != target {
			upgrading = true
			if from == "" {
				from = m.current
			}
		}
	}
	if !upgrading {
		return nil, commonImage(members)
	}

	// The first step with a child that does not run the new image yet.
	step := len(upgradeSteps)
	var waiting []string
	for s := range upgradeSteps {
		for _, m := range members {
			if m.step == s && m.exists && m.running != target {
				waiting = append(waiting, fmt.Sprintf("%s %s: %s", m.child.kind, m.child.name(), waitingMessage(st, m, target)))
			}
		}
		if len(waiting) > 0 {
			step = s
			break
		}
	}
	if step == len(upgradeSteps) {
		return nil, commonImage(members) // every child has rolled out; the next reconcile sees them equal
	}
	for _, m := range members {
		if m.step > step && m.exists {
			m.server.SetImage(holdImage(m))
		}
	}
	return &v1alpha1.InstallationUpgrade{From: from, To: target, Step: upgradeSteps[step].step, WaitingFor: waiting}, ""
}

// checkDowngrade refuses spec.image when it is an older kcp than a child runs, or than a
// child's spec names: a rollout that stalled may have started the newer kcp, which may have
// migrated stored data before it failed, so going back from it is a downgrade too. Each
// child's own composer would refuse it as well; said here, the message names this field.
func checkDowngrade(inst *v1alpha1.KcpInstallation, members []member) *field.Error {
	if inst.Spec.Upgrade.AllowsDowngrade() {
		return nil
	}
	to := kcpimage.Resolve(inst.Spec.Image).Tag
	for _, m := range members {
		if !m.exists {
			continue
		}
		for _, img := range []string{m.running, kcpimage.Resolve(m.spec).String()} {
			from, ok := kcpimage.Parse(img)
			if !ok {
				continue
			}
			if err := builder.Downgrade(from.Tag, to, field.NewPath("spec", "image", "tag"), field.NewPath("spec", "upgrade")); err != nil {
				return err
			}
		}
	}
	return nil
}

// upgradeMembers are the children that run kcp, each with its step and what it runs.
func upgradeMembers(children []child, st *observed.State) []member {
	var out []member
	for i := range children {
		c := &children[i]
		server, runsKcp := c.xr.(v1alpha1.KcpServer)
		if !runsKcp {
			continue
		}
		m := member{child: c, server: server, step: slices.IndexFunc(upgradeSteps, func(s upgradeStep) bool { return slices.Contains(s.kinds, c.kind) })}
		if st.Exists(c.key) {
			m.exists = true
			m.running = st.String(c.key, "status", "image")
			// Only spec.image: an installation with 100 shards would convert 100 XRs whole.
			if raw, ok := st.Map(c.key, "spec", "image"); ok {
				m.spec = &v1alpha1.ImageSpec{}
				if err := runtime.DefaultUnstructuredConverter.FromUnstructured(raw, m.spec); err != nil {
					m.spec = nil
				}
			}
			m.current = m.running
			if m.current == "" {
				m.current = kcpimage.Resolve(m.spec).String()
			}
		}
		out = append(out, m)
	}
	return out
}

// holdImage is the image a child keeps while an earlier step rolls out: the one it runs,
// spelled out (its spec may name none, and the package's default may have moved on), with
// the pull secrets its spec names.
func holdImage(m member) *v1alpha1.ImageSpec {
	img, ok := kcpimage.Parse(m.current)
	if !ok {
		return m.spec
	}
	out := &v1alpha1.ImageSpec{Repository: img.Repository, Tag: img.Tag}
	if m.spec != nil {
		out.ImagePullSecrets = m.spec.ImagePullSecrets
	}
	return out
}

// waitingMessage says why a child of the current step does not run the new image.
func waitingMessage(st *observed.State, m member, target string) string {
	if msg := notReadyMessage(st, m.child.key); msg != "waiting for its status" {
		return msg
	}
	return "rolling out " + target
}

// commonImage is the image every existing child runs, or "" while they differ or one has
// not rolled out yet.
func commonImage(members []member) string {
	img := ""
	for _, m := range members {
		if !m.exists {
			continue
		}
		if m.running == "" || (img != "" && m.running != img) {
			return ""
		}
		img = m.running
	}
	return img
}

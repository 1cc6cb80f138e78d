package v1alpha1

// UpgradePolicy says what a change of spec.image may do to a running kcp.
type UpgradePolicy struct {
	// AllowDowngrade lets spec.image name an older kcp than the one the Deployment runs.
	// kcp migrates its stored data forward only and its releases are not tested backwards,
	// so a downgrade is refused unless this is set.
	// +optional
	AllowDowngrade bool `json:"allowDowngrade,omitempty"`
}

// AllowsDowngrade reports whether the policy allows a downgrade.
func (p *UpgradePolicy) AllowsDowngrade() bool { return p != nil && p.AllowDowngrade }

// UpgradeStep is the step an installation's upgrade is at, in the order kcp needs.
type UpgradeStep string

// The steps of an upgrade: the root shard first, then what runs beside it and reads from it,
// then the front-proxies that route to all of them (kcp#4032: a shard that starts a newer kcp
// than its root shard crash-loops).
const (
	UpgradeStepRootShard    UpgradeStep = "RootShard"
	UpgradeStepShards       UpgradeStep = "Shards"
	UpgradeStepFrontProxies UpgradeStep = "FrontProxies"
)

// InstallationUpgrade is the state of an upgrade under way.
type InstallationUpgrade struct {
	// From is the image the installation ran before the upgrade (the root shard's until it
	// has rolled out).
	// +optional
	From string `json:"from,omitempty"`

	// To is the image spec.image names.
	To string `json:"to"`

	// Step is the component group rolling out now; the groups after it keep their image.
	// +kubebuilder:validation:Enum=RootShard;Shards;FrontProxies
	Step UpgradeStep `json:"step"`

	// WaitingFor lists the components of the step that do not run To yet, each with what it
	// says about itself: a rollout that fails stops the upgrade here, and says why.
	// +optional
	// +listType=atomic
	WaitingFor []string `json:"waitingFor,omitempty"`
}

// KcpServer is an XR whose pods run kcp (a server, the front-proxy or the cache server): its
// spec names their image. A KcpInstallation sets that image on every such XR it composes,
// and holds the later steps of an upgrade on the image they run.
type KcpServer interface {
	SetImage(*ImageSpec)
}

// SetImage sets the image of the root shard and of its internal proxy, which runs beside it.
func (r *RootShard) SetImage(img *ImageSpec) {
	r.Spec.Image = img
	if r.Spec.Proxy != nil {
		r.Spec.Proxy.Image = img
	}
}

// SetImage sets the shard's image.
func (s *Shard) SetImage(img *ImageSpec) { s.Spec.Image = img }

// SetImage sets the cache server's image.
func (c *CacheServer) SetImage(img *ImageSpec) { c.Spec.Image = img }

// SetImage sets the virtual workspace server's image.
func (v *VirtualWorkspace) SetImage(img *ImageSpec) { v.Spec.Image = img }

// SetImage sets the front-proxy's image.
func (f *FrontProxy) SetImage(img *ImageSpec) { f.Spec.Image = img }

package rootshard

import (
	"slices"
	"strings"

	"github.com/configuration-kcp/configuration-kcp/apis/v1alpha1"
	"github.com/configuration-kcp/configuration-kcp/functions/kcp/internal/compose/builder"
	"github.com/configuration-kcp/configuration-kcp/functions/kcp/internal/compose/inputs"
	"github.com/configuration-kcp/configuration-kcp/functions/kcp/internal/compose/required"
	"github.com/configuration-kcp/configuration-kcp/functions/kcp/internal/core/resource"
	"github.com/configuration-kcp/configuration-kcp/functions/kcp/internal/core/result"
	"github.com/configuration-kcp/configuration-kcp/functions/kcp/internal/names"
	"github.com/configuration-kcp/configuration-kcp/functions/kcp/internal/parts/inkcp"
	"github.com/configuration-kcp/configuration-kcp/functions/kcp/internal/parts/kubeconfigfile"
)

// accessUser names the user and context of the access kubeconfigs.
const accessUser = "kcp-operator"

// providerConfigPrefix starts the composition resource name of every ProviderConfig.
const providerConfigPrefix = "providerconfig-"

// objectsInKCP is the requirement for every provider-kubernetes Object that acts in this
// RootShard's kcp, whoever composed it.
func (c *composer) objectsInKCP() result.Requirement {
	return result.Requirement{APIVersion: inkcp.APIVersion, Kind: inkcp.KindObject, Label: names.LabelInKCPRootShard, LabelValue: c.rs.Name}
}

// composeAccess composes what provider-kubernetes needs to act in this RootShard's kcp as
// kcp-operator acts: the <rs>-kcp-operator client certificate (group system:kcp:admin),
// through the internal <rs>-proxy, which reaches every shard. A kubeconfig reaches one
// workspace (its server URL ends in /clusters/<path>), so there is one ProviderConfig per
// workspace that an Object of this installation acts in, and one key per workspace in a
// single Secret. Only the RootShard holds these credentials; Kubeconfigs, Shards and
// Workspaces name the ProviderConfig of their workspace (names.RootShard.ProviderConfig).
func (c *composer) composeAccess() {
	req := c.objectsInKCP()
	c.b.Inputs.Require(req)
	paths := c.accessPaths(c.b.St.Answered(req.Key()))
	for _, p := range paths {
		name := c.name.ProviderConfig(p)
		key := c.b.Key("providerconfig", name)
		c.b.Set.Add(key, inkcp.ProviderConfig(name, c.b.Namespace, names.Labels(c.rs.Name, "kcp-operator"), c.name.AccessKubeconfig(), names.WorkspaceKey(p)), builder.Readiness(c.b.St.Exists(key)))
	}
	c.composeAccessKubeconfig(paths)
}

// accessPaths lists the workspaces that need credentials: root, where shards register, and
// the workspace of every Object labelled with this RootShard. Until Crossplane has listed
// those Objects, and for an Object whose annotation is not a workspace path, the
// ProviderConfigs composed so far are kept: an Object whose credentials vanish cannot
// delete what it created in kcp.
func (c *composer) accessPaths(listed bool) []string {
	paths := []string{names.RootWorkspace}
	keepComposed := !listed
	for _, n := range c.b.St.Names(inkcp.KindObject) {
		o := c.b.St.Object(inkcp.KindObject, n).Object
		p, ok := workspaceOf(o, c.rs.Name)
		if !ok {
			keepComposed = true
			continue
		}
		paths = append(paths, p)
	}
	if keepComposed {
		for _, key := range c.b.St.ComposedNames() {
			if !strings.HasPrefix(string(key), providerConfigPrefix) {
				continue
			}
			if k := c.b.St.String(key, "spec", "credentials", "secretRef", "key"); k != "" {
				paths = append(paths, strings.ReplaceAll(k, ".", ":"))
			}
		}
	}
	slices.Sort(paths)
	return slices.Compact(paths)
}

// workspaceOf returns the workspace an Object of this RootShard acts in.
func workspaceOf(o map[string]any, rootShard string) (string, bool) {
	meta, _ := o["metadata"].(map[string]any)
	labels, _ := meta["labels"].(map[string]any)
	if labels[names.LabelInKCPRootShard] != rootShard {
		return "", false
	}
	annotations, _ := meta["annotations"].(map[string]any)
	p, _ := annotations[names.AnnotationWorkspace].(string)
	if names.ValidateWorkspacePath(p) != nil {
		return "", false
	}
	return p, true
}

// composeAccessKubeconfig composes the Secret the ProviderConfigs read, once cert-manager has
// issued the client certificate; until then an existing Secret is kept as it is.
func (c *composer) composeAccessKubeconfig(paths []string) {
	name := c.name.AccessKubeconfig()
	key := c.b.Key("secret", name)
	cert, ca := c.name.Cert("kcp-operator"), c.name.CA(names.CAServer)
	c.b.Inputs.Read(inputs.KindSecret, cert)
	c.b.Inputs.Read(inputs.KindSecret, ca)
	crt, keyPEM := c.b.St.Secret(cert).Data["tls.crt"], c.b.St.Secret(cert).Data["tls.key"]
	caPEM := c.b.St.Secret(ca).Data["tls.crt"]
	if len(crt) == 0 || len(keyPEM) == 0 || len(caPEM) == 0 || c.b.NotBeforeIssued(key) {
		// Not issued yet: CertificatesReady says so.
		c.b.KeepOrWait(key, false, "")
		return
	}
	data := make(map[string][]byte, len(paths))
	for _, p := range paths {
		e := kubeconfigfile.Embedded{
			Clusters:       map[string]string{accessUser: names.ProxyWorkspaceURL(c.rs, p)},
			Contexts:       map[string]string{accessUser: accessUser},
			CurrentContext: accessUser,
			CAData:         caPEM,
			UserName:       accessUser,
			CertData:       crt,
			KeyData:        keyPEM,
		}
		data[names.WorkspaceKey(p)] = e.Config().Marshal()
	}
	c.b.Secret(name, names.Labels(c.rs.Name, "kcp-operator"), data)
}

// composeRegistrations observes, for every Shard of this RootShard, kcp's Shard object of
// that name in root, keeps it out of scheduling while the shard is down (availability.go),
// and deregisters the shards whose Shard XR is gone, as kcp-operator's Shard finalizer does. Deregistration takes two reconciles: the Object is first given the
// Delete policy, then left out, so Crossplane deletes it and provider-kubernetes deletes the
// kcp object (tolerating NotFound). An Object that only observes is dropped without touching
// kcp; that is what happens when the whole installation is deleted, kcp with it, which would
// otherwise leave Objects waiting forever for a kcp that is gone.
func (c *composer) composeRegistrations() {
	shards := map[string]bool{}
	for _, sh := range required.ShardsOf(c.b.St, c.rs.Name) {
		shards[sh.Name] = true
		why := c.unschedulable(sh)
		c.registration(sh.Name, c.registrationPolicies(sh.Name, why), why)
	}
	for _, key := range c.b.St.ComposedNames() {
		if !strings.HasPrefix(string(key), registrationPrefix) {
			continue
		}
		shard := strings.TrimPrefix(string(key), registrationPrefix)
		switch {
		case shards[shard]:
		case !c.b.St.Answered(required.All(v1alpha1.KindShard).Key()):
			// Not listed yet: keep it as it is.
			if u, ok := c.b.St.Get(key); ok {
				c.b.Set.Keep(key, u, resource.ReadyTrue)
			}
		case slices.Contains(c.b.St.Strings(key, "spec", "managementPolicies"), "Delete"):
			// Left out: Crossplane deletes it, and provider-kubernetes the kcp Shard.
		default:
			c.registration(shard, inkcp.PoliciesObserveDelete, "")
		}
	}
}

// registrationPrefix starts the composition resource name of a registration Object.
const registrationPrefix = "registration-"

// registration composes the Object observing shard's kcp Shard object in root, annotated
// unschedulable when that says why. It counts as ready whatever kcp says: whether a shard
// registered is the Shard's to report, and a RootShard must not wait for its shards.
func (c *composer) registration(shard string, policies []string, unschedulable string) {
	c.b.Set.Add(resource.Name(registrationPrefix+shard), inkcp.Object{
		Name:           c.name.Registration(shard),
		Namespace:      c.b.Namespace,
		Labels:         map[string]string{names.LabelInKCPRootShard: c.rs.Name, names.LabelOwnerShard: shard},
		Annotations:    map[string]string{names.AnnotationWorkspace: names.RootWorkspace},
		ProviderConfig: c.name.ProviderConfig(names.RootWorkspace),
		Policies:       policies,
		Manifest:       inkcp.Shard(shard, unschedulable),
	}.Unstructured(), resource.ReadyTrue)
}

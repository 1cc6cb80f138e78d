package tenant

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/configuration-kcp/configuration-kcp/apis/v1alpha1"
	"github.com/configuration-kcp/configuration-kcp/functions/kcp/internal/compose/sharing"
	"github.com/configuration-kcp/configuration-kcp/functions/kcp/internal/core/resource"
	"github.com/configuration-kcp/configuration-kcp/functions/kcp/internal/core/result"
	"github.com/configuration-kcp/configuration-kcp/functions/kcp/internal/kinds/kubeconfig"
	"github.com/configuration-kcp/configuration-kcp/functions/kcp/internal/kinds/workspace"
	"github.com/configuration-kcp/configuration-kcp/functions/kcp/internal/testworld"
)

// validate is fn.go's table for the kinds a Tenant composes.
func validate(kind string, xr v1alpha1.XR) field.ErrorList {
	switch kind {
	case "Kubeconfig":
		return kubeconfig.Validate(xr.(*v1alpha1.Kubeconfig))
	case "Workspace":
		return workspace.Validate(xr.(*v1alpha1.Workspace))
	}
	return field.ErrorList{field.InternalError(nil, fmt.Errorf("no kind %s", kind))}
}

// grant is Tenant team-a in namespace kcp sharing FrontProxy front with namespace team-a.
func grant(mods ...func(*v1alpha1.Tenant)) *v1alpha1.Tenant {
	t := &v1alpha1.Tenant{
		TypeMeta:   metav1.TypeMeta{APIVersion: "kcp.crossplane.io/v1alpha1", Kind: "Tenant"},
		ObjectMeta: metav1.ObjectMeta{Name: "team-a", Namespace: "kcp", UID: "tenant-uid", CreationTimestamp: metav1.NewTime(time.Unix(100, 0))},
		Spec: v1alpha1.TenantSpec{
			FrontProxy:          v1alpha1.TenantFrontProxy{Ref: ref("front")},
			ClusterRoleBindings: []v1alpha1.WorkspaceClusterRoleBinding{{ClusterRole: "admin", Groups: []string{"tenant:team-a:admins"}}},
		},
	}
	for _, m := range mods {
		m(t)
	}
	return t
}

// teamKubeconfig is the team's Kubeconfig name, created at second at, reaching FrontProxy
// kcp/front as team-a:alice of group team-a:devs.
func teamKubeconfig(name string, at int64, mods ...func(*v1alpha1.Kubeconfig)) *v1alpha1.Kubeconfig {
	kc := &v1alpha1.Kubeconfig{
		TypeMeta:   metav1.TypeMeta{APIVersion: "kcp.crossplane.io/v1alpha1", Kind: "Kubeconfig"},
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: "team-a", CreationTimestamp: metav1.NewTime(time.Unix(at, 0))},
		Spec: v1alpha1.KubeconfigSpec{
			Target:    v1alpha1.KubeconfigTarget{FrontProxyRef: &v1alpha1.SharedReference{Name: "front", Namespace: "kcp"}},
			Username:  "tenant:team-a:alice",
			Groups:    []string{"tenant:team-a:devs"},
			Validity:  metav1.Duration{Duration: 720 * time.Hour},
			SecretRef: ref(name + "-kubeconfig"),
		},
	}
	for _, m := range mods {
		m(kc)
	}
	return kc
}

// teamWorkspace is the team's Workspace name in RootShard kcp/root.
func teamWorkspace(name string, at int64, mods ...func(*v1alpha1.Workspace)) *v1alpha1.Workspace {
	ws := &v1alpha1.Workspace{
		TypeMeta:   metav1.TypeMeta{APIVersion: "kcp.crossplane.io/v1alpha1", Kind: "Workspace"},
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: "team-a", CreationTimestamp: metav1.NewTime(time.Unix(at, 0))},
		Spec: v1alpha1.WorkspaceSpec{
			RootShard:           v1alpha1.WorkspaceRootShard{Ref: &v1alpha1.SharedReference{Name: "root", Namespace: "kcp"}},
			ClusterRoleBindings: []v1alpha1.WorkspaceClusterRoleBinding{{ClusterRole: "edit", Groups: []string{"tenant:team-a:devs"}}},
		},
	}
	for _, m := range mods {
		m(ws)
	}
	return ws
}

func ref(name string) corev1.LocalObjectReference { return corev1.LocalObjectReference{Name: name} }

// homeOff is a shard's spec with home workspaces off, as a shared installation has them.
var homeOff = v1alpha1.CommonShardSpec{HomeWorkspaces: &v1alpha1.HomeWorkspaces{}}

// installation is the world of Tenant t: FrontProxy front of RootShard root, the Tenants of
// namespace kcp, the quota of namespace team-a the docs ask for, and every requirement
// answered, with the team's XRs in it.
func installation(t *v1alpha1.Tenant, team ...any) *testworld.World {
	return unquoted(t, append([]any{quota(QuotaName, sharing.MaxTeamXRs, sharing.MaxTeamXRs)}, team...)...)
}

// unquoted is installation without the team's quota: the team's objects are all there is
// in namespace team-a.
func unquoted(t *v1alpha1.Tenant, team ...any) *testworld.World {
	w := testworld.New().InNamespace("kcp").Object(t).Object(&v1alpha1.FrontProxy{
		TypeMeta:   metav1.TypeMeta{APIVersion: "kcp.crossplane.io/v1alpha1", Kind: "FrontProxy"},
		ObjectMeta: metav1.ObjectMeta{Name: "front", Namespace: "kcp"},
		Spec:       v1alpha1.FrontProxySpec{RootShard: v1alpha1.RootShardConfig{Ref: &corev1.LocalObjectReference{Name: "root"}}},
	}).Object(&v1alpha1.RootShard{
		TypeMeta:   metav1.TypeMeta{APIVersion: "kcp.crossplane.io/v1alpha1", Kind: "RootShard"},
		ObjectMeta: metav1.ObjectMeta{Name: "root", Namespace: "kcp"},
		Spec:       v1alpha1.RootShardSpec{CommonShardSpec: homeOff},
	})
	for _, o := range team {
		w.Object(requestOf(o))
	}
	return answerAll(t, w)
}

// requestOf is what the Tenant reads of a team's object: for a Kubeconfig or Workspace of the
// team's namespace, the TenantRequest its own composition makes of it (sharing.Request), owned
// by it; anything else as it is.
func requestOf(o any) any {
	b, err := json.Marshal(o)
	if err != nil {
		panic(err)
	}
	m := map[string]any{}
	if err := json.Unmarshal(b, &m); err != nil {
		panic(err)
	}
	kind, _ := m["kind"].(string)
	meta, _ := m["metadata"].(map[string]any)
	if ns, _ := meta["namespace"].(string); ns == "kcp" || (kind != v1alpha1.KindKubeconfig && kind != v1alpha1.KindWorkspace) {
		return o
	}
	st := testworld.New().State().WithComposite(m)
	var spec v1alpha1.TenantRequestSpec
	switch kind {
	case v1alpha1.KindKubeconfig:
		kc := &v1alpha1.Kubeconfig{}
		_ = json.Unmarshal(b, kc)
		target := v1alpha1.TenantRequestTarget{Kind: v1alpha1.KindFrontProxy}
		if r := kc.Spec.Target.FrontProxyRef; r != nil {
			target.Namespace, target.Name = r.Namespace, r.Name
		}
		spec = sharing.Request(kind, kc, kc.Spec, target, st)
	case v1alpha1.KindWorkspace:
		ws := &v1alpha1.Workspace{}
		_ = json.Unmarshal(b, ws)
		target := v1alpha1.TenantRequestTarget{Kind: v1alpha1.KindRootShard}
		if r := ws.Spec.RootShard.Ref; r != nil {
			target.Namespace, target.Name = r.Namespace, r.Name
		}
		spec = sharing.Request(kind, ws, ws.Spec, target, st)
	}
	name, _ := meta["name"].(string)
	rq := &v1alpha1.TenantRequest{
		TypeMeta: metav1.TypeMeta{APIVersion: "kcp.crossplane.io/v1alpha1", Kind: v1alpha1.KindTenantRequest},
		ObjectMeta: metav1.ObjectMeta{Name: sharing.RequestName(kind, name), Namespace: meta["namespace"].(string),
			OwnerReferences: []metav1.OwnerReference{{APIVersion: "kcp.crossplane.io/v1alpha1", Kind: kind, Name: name, UID: "uid-" + types.UID(name), Controller: ptr(true)}}},
		Spec: spec,
	}
	if ts, ok := meta["creationTimestamp"].(string); ok {
		_ = rq.CreationTimestamp.UnmarshalQueryParameter(ts)
	}
	if ts, ok := meta["deletionTimestamp"].(string); ok {
		d := metav1.Time{}
		_ = d.UnmarshalQueryParameter(ts)
		rq.DeletionTimestamp = &d
	}
	return rq
}

func ptr[T any](v T) *T { return &v }

// answerAll answers every requirement Tenant t makes of world w, stage by stage, as Crossplane
// does: what the Tenant reads depends on what it read (the RootShard once the FrontProxy is
// read, the team's XRs once its quota is).
func answerAll(t *v1alpha1.Tenant, w *testworld.World) *testworld.World {
	for range 5 {
		r, _ := Compose(t, w.State(), validate)
		for _, q := range r.Requirements {
			w.Answer(q.Key())
		}
	}
	return w
}

// quota is ResourceQuota name of namespace team-a bounding its Kubeconfigs and Workspaces
// (a negative count leaves that one out).
func quota(name string, kubeconfigs, workspaces int) map[string]any {
	hard := map[string]any{}
	if kubeconfigs >= 0 {
		hard["count/kubeconfigs.kcp.crossplane.io"] = fmt.Sprint(kubeconfigs)
	}
	if workspaces >= 0 {
		hard["count/workspaces.kcp.crossplane.io"] = fmt.Sprint(workspaces)
	}
	return map[string]any{"apiVersion": "v1", "kind": "ResourceQuota", "metadata": map[string]any{"name": name, "namespace": "team-a"}, "spec": map[string]any{"hard": hard}}
}

// composed summarises the desired XRs as "<kind> <name> <spec as JSON>", and kept ones as
// "kept <kind> <name>".
func composed(t *testing.T, r result.Result[v1alpha1.TenantStatus]) []string {
	t.Helper()
	var out []string
	for _, o := range r.Desired.Objects() {
		if o.Kept != nil {
			out = append(out, "kept "+o.Kept.GetKind()+" "+o.Kept.GetName())
			continue
		}
		u := o.Resource.(*resource.Unstructured)
		spec := map[string]any{}
		for k, v := range u.Object["spec"].(map[string]any) {
			if k != "crossplane" {
				spec[k] = v
			}
		}
		b, err := json.Marshal(spec)
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, u.GetKind()+" "+u.GetName()+" "+string(b))
	}
	slices.Sort(out)
	return out
}

const (
	teamWorkspaceXR = `Workspace team-a {"clusterRoleBindings":[{"clusterRole":"admin","groups":["tenant:team-a:admins"]}],"name":"team-a","parent":"root","rootShard":{"ref":{"name":"root"}}}`
	devKubeconfig   = `Kubeconfig team-a.dev {"groups":["tenant:team-a:devs"],"secretRef":{"name":"team-a.dev-kubeconfig"},"target":{"frontProxyRef":{"name":"front"}},"targetWorkspace":"root:team-a","username":"tenant:team-a:alice","validity":"720h0m0s"}`
)

// composeCase is a Tenant in a world, and what Compose must make of it: the XRs it composes
// (or keeps), the members it reports, or the errors that refuse it whole.
type composeCase struct {
	reason   string
	tenant   *v1alpha1.Tenant
	world    func(*v1alpha1.Tenant) *testworld.World
	composed []string
	members  []v1alpha1.TenantMember
	errs     []string
}

// runComposeCases runs Compose on every case.
func runComposeCases(t *testing.T, cases map[string]composeCase) {
	t.Helper()
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			r, errs := Compose(tc.tenant, tc.world(tc.tenant).State(), validate)
			var got []string
			for _, e := range errs {
				got = append(got, e.Error())
			}
			if diff := cmp.Diff(tc.errs, got); diff != "" {
				t.Fatalf("%s\nCompose(...) errors: -want, +got:\n%s", tc.reason, diff)
			}
			if len(errs) > 0 {
				return
			}
			if diff := cmp.Diff(tc.composed, composed(t, r)); diff != "" {
				t.Errorf("%s\nCompose(...) desired: -want, +got:\n%s", tc.reason, diff)
			}
			if diff := cmp.Diff(tc.members, r.Status.Members); diff != "" {
				t.Errorf("%s\nstatus.members: -want, +got:\n%s", tc.reason, diff)
			}
			for _, o := range r.Desired.Objects() {
				if o.Kept == nil && !strings.HasPrefix(string(o.Name), "workspace") && !strings.HasPrefix(string(o.Name), "kubeconfig-") {
					t.Errorf("unexpected composition resource name %s", o.Name)
				}
			}
		})
	}
}

func TestCompose(t *testing.T) {
	cases := map[string]composeCase{
		"NoTeamXRs": {
			reason:   "A Tenant creates the team's workspace, with the platform's bindings, before the team asks for anything.",
			tenant:   grant(),
			world:    func(t *v1alpha1.Tenant) *testworld.World { return installation(t) },
			composed: []string{teamWorkspaceXR},
		},
		"Kubeconfig": {
			reason:   "A team's Kubeconfig gets one of the Tenant's namespace that issues its certificate: the team's identity, the team's workspace by default, through the Tenant's FrontProxy.",
			tenant:   grant(),
			world:    func(t *v1alpha1.Tenant) *testworld.World { return installation(t, teamKubeconfig("dev", 1)) },
			composed: []string{devKubeconfig, teamWorkspaceXR},
			members:  []v1alpha1.TenantMember{{Kind: "Kubeconfig", Name: "dev", Granted: true, Message: "Kubeconfig kcp/team-a.dev is not Ready yet"}},
		},
		"Workspace": {
			reason: "A team's Workspace is created in the team's workspace unless it names a parent below it.",
			tenant: grant(),
			world: func(t *v1alpha1.Tenant) *testworld.World {
				return installation(t, teamWorkspace("app", 1), teamWorkspace("deep", 2, func(ws *v1alpha1.Workspace) { ws.Spec.Parent = "root:team-a:app" }))
			},
			composed: []string{
				teamWorkspaceXR,
				`Workspace team-a.app {"clusterRoleBindings":[{"clusterRole":"edit","groups":["tenant:team-a:devs"]}],"name":"app","parent":"root:team-a","rootShard":{"ref":{"name":"root"}}}`,
				`Workspace team-a.deep {"clusterRoleBindings":[{"clusterRole":"edit","groups":["tenant:team-a:devs"]}],"name":"deep","parent":"root:team-a:app","rootShard":{"ref":{"name":"root"}}}`,
			},
			members: []v1alpha1.TenantMember{
				{Kind: "Workspace", Name: "app", Granted: true, Message: "Workspace kcp/team-a.app is not Ready yet"},
				{Kind: "Workspace", Name: "deep", Granted: true, Message: "Workspace kcp/team-a.deep is not Ready yet"},
			},
		},
		"OtherInstallations": {
			reason: "XRs of the team that name another FrontProxy or RootShard, or another namespace, are not the Tenant's to grant.",
			tenant: grant(),
			world: func(t *v1alpha1.Tenant) *testworld.World {
				return installation(t,
					teamKubeconfig("elsewhere", 1, func(kc *v1alpha1.Kubeconfig) { kc.Spec.Target.FrontProxyRef.Name = "other" }),
					teamKubeconfig("own", 2, func(kc *v1alpha1.Kubeconfig) { kc.Spec.Target.FrontProxyRef.Namespace = "" }),
					teamWorkspace("other", 3, func(ws *v1alpha1.Workspace) { ws.Spec.RootShard.Ref.Namespace = "kcp-eu" }))
			},
			composed: []string{teamWorkspaceXR},
		},
		"ForeignIdentities": {
			reason: "A team's user and groups must be the team's: no kcp admin, no system group, no other team's group.",
			tenant: grant(),
			world: func(t *v1alpha1.Tenant) *testworld.World {
				return installation(t, teamKubeconfig("dev", 1, func(kc *v1alpha1.Kubeconfig) {
					kc.Spec.Username = "admin"
					kc.Spec.Groups = []string{"system:kcp:admin", "tenant:team-b:devs", "tenant:team-a:devs"}
				}))
			},
			composed: []string{teamWorkspaceXR},
			members: []v1alpha1.TenantMember{{Kind: "Kubeconfig", Name: "dev", Message: `Kubeconfig team-a/dev is refused: [` +
				`spec.username: Invalid value: "admin": a Kubeconfig of namespace team-a for a shared installation must name a user of its team: tenant:team-a:<name>, ` +
				`spec.groups[0]: Invalid value: "system:kcp:admin": a Kubeconfig of namespace team-a for a shared installation may name only groups of its team: tenant:team-a:<name>, ` +
				`spec.groups[1]: Invalid value: "tenant:team-b:devs": a Kubeconfig of namespace team-a for a shared installation may name only groups of its team: tenant:team-a:<name>]`}},
		},
		"CertificateTemplate": {
			reason: "A certificate template could add organizations (groups) to the certificate: not the team's to set.",
			tenant: grant(),
			world: func(t *v1alpha1.Tenant) *testworld.World {
				return installation(t, teamKubeconfig("dev", 1, func(kc *v1alpha1.Kubeconfig) {
					kc.Spec.CertificateTemplate = &v1alpha1.CertificateTemplate{}
				}))
			},
			composed: []string{teamWorkspaceXR},
			members: []v1alpha1.TenantMember{{Kind: "Kubeconfig", Name: "dev", Message: "Kubeconfig team-a/dev is refused: spec.certificateTemplate: Forbidden: " +
				"a Kubeconfig for a shared installation gets the certificate its Tenant issues; its subject and usages are not the team's to choose"}},
		},
		"OutsideTheTeamsWorkspace": {
			reason: "A team's kubeconfig opens, and its workspaces live in, the team's workspace or below it.",
			tenant: grant(),
			world: func(t *v1alpha1.Tenant) *testworld.World {
				return installation(t,
					teamKubeconfig("dev", 1, func(kc *v1alpha1.Kubeconfig) { kc.Spec.TargetWorkspace = "root:team-ab" }),
					teamWorkspace("app", 2, func(ws *v1alpha1.Workspace) { ws.Spec.Parent = "root" }))
			},
			composed: []string{teamWorkspaceXR},
			members: []v1alpha1.TenantMember{
				{Kind: "Kubeconfig", Name: "dev", Message: `Kubeconfig team-a/dev is refused: spec.targetWorkspace: Invalid value: "root:team-ab": the team's workspace is root:team-a: open it or a workspace below it`},
				{Kind: "Workspace", Name: "app", Message: `Workspace team-a/app is refused: spec.parent: Invalid value: "root": the team's workspace is root:team-a: create workspaces in it or below it`},
			},
		},
		"OtherTeamsWorkspaceType": {
			reason: "Workspaces are created with admin credentials, so kcp would not stop a team from using another team's WorkspaceType: the Tenant does.",
			tenant: grant(),
			world: func(t *v1alpha1.Tenant) *testworld.World {
				return installation(t,
					teamWorkspace("app", 1, func(ws *v1alpha1.Workspace) {
						ws.Spec.Type = &v1alpha1.WorkspaceTypeReference{Name: "secret-sauce", Path: "root:team-b"}
					}),
					teamWorkspace("universal", 2, func(ws *v1alpha1.Workspace) {
						ws.Spec.Type = &v1alpha1.WorkspaceTypeReference{Name: "universal", Path: "root"}
					}))
			},
			composed: []string{
				teamWorkspaceXR,
				`Workspace team-a.universal {"clusterRoleBindings":[{"clusterRole":"edit","groups":["tenant:team-a:devs"]}],"name":"universal","parent":"root:team-a","rootShard":{"ref":{"name":"root"}},"type":{"name":"universal","path":"root"}}`,
			},
			members: []v1alpha1.TenantMember{
				{Kind: "Workspace", Name: "universal", Granted: true, Message: "Workspace kcp/team-a.universal is not Ready yet"},
				{Kind: "Workspace", Name: "app", Message: `Workspace team-a/app is refused: spec.type.path: Invalid value: "root:team-b": a team's workspace uses WorkspaceTypes of root that Tenant team-a allows, or its own in root:team-a and below`},
			},
		},
		"SystemBinding": {
			reason: "Binding a role to kcp's own groups in a team's workspace would open it to every user of kcp.",
			tenant: grant(),
			world: func(t *v1alpha1.Tenant) *testworld.World {
				return installation(t, teamWorkspace("app", 1, func(ws *v1alpha1.Workspace) {
					ws.Spec.ClusterRoleBindings[0].Groups = []string{"system:authenticated"}
				}))
			},
			composed: []string{teamWorkspaceXR},
			members: []v1alpha1.TenantMember{{Kind: "Workspace", Name: "app", Message: "Workspace team-a/app is refused: spec.clusterRoleBindings[0].groups[0]: Forbidden: " +
				"system:authenticated is one of kcp's own groups; a team's workspace binds groups and users, not kcp's"}},
		},
		"Validity": {
			reason:   "kcp cannot revoke a certificate: its lifetime is bounded by the platform.",
			tenant:   grant(func(t *v1alpha1.Tenant) { t.Spec.Limits.MaxValidity = &metav1.Duration{Duration: 24 * time.Hour} }),
			world:    func(t *v1alpha1.Tenant) *testworld.World { return installation(t, teamKubeconfig("dev", 1)) },
			composed: []string{teamWorkspaceXR},
			members: []v1alpha1.TenantMember{{Kind: "Kubeconfig", Name: "dev", Message: `Kubeconfig team-a/dev is refused: spec.validity: Invalid value: "720h0m0s": ` +
				"at most 24h0m0s: spec.limits.maxValidity of Tenant team-a (kcp cannot revoke a certificate before it expires)"}},
		},
		"Limit": {
			reason: "Beyond the limit the newest are refused; the oldest keep theirs.",
			tenant: grant(func(t *v1alpha1.Tenant) { one := int32(1); t.Spec.Limits.Kubeconfigs = &one }),
			world: func(t *v1alpha1.Tenant) *testworld.World {
				return installation(t, teamKubeconfig("new", 2), teamKubeconfig("dev", 1))
			},
			composed: []string{devKubeconfig, teamWorkspaceXR},
			members: []v1alpha1.TenantMember{
				{Kind: "Kubeconfig", Name: "dev", Granted: true, Message: "Kubeconfig kcp/team-a.dev is not Ready yet"},
				{Kind: "Kubeconfig", Name: "new", Message: "Kubeconfig team-a/new is refused: metadata.name: Forbidden: the team has more Kubeconfigs than spec.limits.kubeconfigs of Tenant team-a allows (1): the newest are refused; delete one, or ask the platform team"},
			},
		},
		"RefusedKeepsWhatRuns": {
			reason: "A team that turns a granted Kubeconfig into a refused one keeps the old credential as it was: nothing is deleted or changed because of bad input.",
			tenant: grant(),
			world: func(t *v1alpha1.Tenant) *testworld.World {
				w := installation(t, teamKubeconfig("dev", 1))
				r, _ := Compose(t, w.State(), validate)
				w.Exists(r.Desired)
				return w.Object(requestOf(teamKubeconfig("dev", 1, func(kc *v1alpha1.Kubeconfig) { kc.Spec.Username = "admin" })))
			},
			composed: []string{teamWorkspaceXR, "kept Kubeconfig team-a.dev"},
			members: []v1alpha1.TenantMember{{Kind: "Kubeconfig", Name: "dev", Message: `Kubeconfig team-a/dev is refused: spec.username: Invalid value: "admin": ` +
				"a Kubeconfig of namespace team-a for a shared installation must name a user of its team: tenant:team-a:<name>; what was composed for it before is kept unchanged"}},
		},
		"NameTaken": {
			reason: "A Kubeconfig of the platform's own with the name the Tenant would compose is never taken over.",
			tenant: grant(),
			world: func(t *v1alpha1.Tenant) *testworld.World {
				w := installation(t, teamKubeconfig("dev", 1))
				return w.Object(&v1alpha1.Kubeconfig{TypeMeta: metav1.TypeMeta{APIVersion: "kcp.crossplane.io/v1alpha1", Kind: "Kubeconfig"}, ObjectMeta: metav1.ObjectMeta{Name: "team-a.dev", Namespace: "kcp"}})
			},
			composed: []string{teamWorkspaceXR},
			members:  []v1alpha1.TenantMember{{Kind: "Kubeconfig", Name: "dev", Message: "Kubeconfig team-a/dev is refused: metadata.name: Forbidden: the Kubeconfig kcp/team-a.dev this would compose exists and is not controlled by Tenant team-a (it has no controller); it is left untouched; rename this Kubeconfig"}},
		},
		"SecondTenant": {
			reason: "One Tenant per team: a later one would compose the same XRs, and is refused whole.",
			tenant: grant(func(t *v1alpha1.Tenant) {
				t.Name, t.Spec.Namespace, t.CreationTimestamp = "team-a-again", "team-a", metav1.NewTime(time.Unix(200, 0))
			}),
			world: func(t *v1alpha1.Tenant) *testworld.World { return installation(t).Object(grant()) },
			errs:  []string{"spec.namespace: Forbidden: Tenant kcp/team-a, created before this one, already shares this namespace's kcp installation with namespace team-a; one Tenant per team: change that one"},
		},
		"NotAnswered": {
			reason: "Before Crossplane has read the team's XRs, nothing new is composed and nothing is dropped.",
			tenant: grant(),
			world: func(t *v1alpha1.Tenant) *testworld.World {
				w := installation(t, teamKubeconfig("dev", 1))
				r, _ := Compose(t, w.State(), validate)
				seen := testworld.New().InNamespace("kcp").Exists(r.Desired)
				return seen
			},
			composed: []string{"kept Kubeconfig team-a.dev", "kept Workspace team-a"},
		},
		"FrontProxyGone": {
			reason: "Without its FrontProxy the Tenant cannot know its installation: everything is kept as it is.",
			tenant: grant(),
			world: func(t *v1alpha1.Tenant) *testworld.World {
				w := installation(t, teamKubeconfig("dev", 1))
				r, _ := Compose(t, w.State(), validate)
				return w.Exists(r.Desired).Drop("FrontProxy", "front")
			},
			composed: []string{"kept Kubeconfig team-a.dev", "kept Workspace team-a"},
		},
	}
	runComposeCases(t, cases)
}

func TestValidate(t *testing.T) {
	cases := map[string]struct {
		reason string
		tenant *v1alpha1.Tenant
		want   []string
	}{
		"Valid":   {reason: "A Tenant of another namespace is valid.", tenant: grant()},
		"OwnName": {reason: "A Tenant named after its own namespace would share with itself.", tenant: grant(func(t *v1alpha1.Tenant) { t.Name = "kcp" }), want: []string{`metadata.name: Invalid value: "kcp": a Tenant shares the installation of its namespace with another namespace, not its own: set spec.namespace to the team's namespace`}},
		"SystemGroup": {
			reason: "The platform's bindings in a team's workspace do not bind kcp's own groups either.",
			tenant: grant(func(t *v1alpha1.Tenant) { t.Spec.ClusterRoleBindings[0].Groups = []string{"system:authenticated"} }),
			want:   []string{"spec.clusterRoleBindings[0].groups[0]: Forbidden: system:authenticated is one of kcp's own groups; a team's workspace binds groups and users, not kcp's"},
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			var got []string
			for _, e := range Validate(tc.tenant) {
				got = append(got, e.Error())
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("%s\nValidate: -want, +got:\n%s", tc.reason, diff)
			}
		})
	}
}

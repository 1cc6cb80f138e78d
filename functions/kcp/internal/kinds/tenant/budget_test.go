package tenant

import (
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/configuration-kcp/configuration-kcp/apis/v1alpha1"
	"github.com/configuration-kcp/configuration-kcp/functions/kcp/internal/core/result"
	"github.com/configuration-kcp/configuration-kcp/functions/kcp/internal/testworld"
)

// roles is n distinct cluster role names of length 200, as long as a team may bind.
func roles(n int) []string { return rolesOf(n, 200) }

// rolesOf is n role names of size bytes each.
func rolesOf(n, size int) []string {
	out := make([]string, n)
	for i := range out {
		out[i] = fmt.Sprintf("%03d-%s", i, strings.Repeat("r", size-4))
	}
	return out
}

// annotated gives a team's Kubeconfig an annotation of size bytes.
func annotated(size int) func(*v1alpha1.Kubeconfig) {
	return func(kc *v1alpha1.Kubeconfig) {
		kc.Annotations = map[string]string{"example.com/notes": strings.Repeat("n", size)}
	}
}

// withRoles binds roles to a team's Kubeconfig in the team's workspace.
func withRoles(rs []string) func(*v1alpha1.Kubeconfig) {
	return func(kc *v1alpha1.Kubeconfig) {
		kc.Spec.Authorization = &v1alpha1.KubeconfigAuthorization{ClusterRoleBindings: v1alpha1.KubeconfigClusterRoleBindings{ClusterRoles: rs}}
	}
}

// huge gives a team's Workspace n bindings of g groups of about size bytes each.
func huge(n, g, size int) func(*v1alpha1.Workspace) {
	return func(ws *v1alpha1.Workspace) {
		ws.Spec.ClusterRoleBindings = nil
		for i := range n {
			var groups []string
			for j := range g {
				groups = append(groups, fmt.Sprintf("team-a:%02d-%02d-%s", i, j, strings.Repeat("g", size)))
			}
			ws.Spec.ClusterRoleBindings = append(ws.Spec.ClusterRoleBindings, v1alpha1.WorkspaceClusterRoleBinding{ClusterRole: fmt.Sprintf("role-%02d", i), Groups: groups})
		}
	}
}

// limits sets a Tenant's limits; nil leaves one unset.
func limits(kubeconfigs, workspaces, bindings, bytes *int32) func(*v1alpha1.Tenant) {
	return func(t *v1alpha1.Tenant) {
		t.Spec.Limits.Kubeconfigs, t.Spec.Limits.Workspaces, t.Spec.Limits.Bindings, t.Spec.Limits.Bytes = kubeconfigs, workspaces, bindings, bytes
	}
}

func i32(v int32) *int32 { return &v }

// settled is world w after Crossplane applied what Tenant t composed in it.
func settled(t *v1alpha1.Tenant, w *testworld.World) *testworld.World {
	r, _ := Compose(t, w.State(), validate)
	return w.Exists(r.Desired)
}

// composedNames lists what a Tenant composes as "<kind> <name>", and what it keeps as
// "kept <kind> <name>".
func composedNames(r result.Result[v1alpha1.TenantStatus]) []string {
	var out []string
	for _, o := range r.Desired.Objects() {
		if o.Kept != nil {
			out = append(out, "kept "+o.Kept.GetKind()+" "+o.Kept.GetName())
			continue
		}
		u := o.Resource.(interface {
			GetKind() string
			GetName() string
		})
		out = append(out, u.GetKind()+" "+u.GetName())
	}
	return out
}

// granted lists the granted members' names.
func granted(ms []v1alpha1.TenantMember) []string {
	var out []string
	for _, m := range ms {
		if m.Granted {
			out = append(out, m.Kind+" "+m.Name)
		}
	}
	return out
}

func TestBudgets(t *testing.T) {
	many := func(n int, mods ...func(*v1alpha1.Kubeconfig)) []any {
		var out []any
		for i := range n {
			out = append(out, teamKubeconfig(fmt.Sprintf("k%02d", i), int64(i+1), mods...))
		}
		return out
	}
	cases := map[string]struct {
		reason string
		tenant *v1alpha1.Tenant
		world  func(*v1alpha1.Tenant) *testworld.World
		// errs are the Tenant's own errors.
		errs []string
		// composed is what is composed or kept.
		composed []string
		granted  []string
		// messages are parts of the named members' messages.
		messages map[string]string
		// condition is part of the MembersReady message.
		condition  string
		notListed  int32
		maxMembers int
		// deleted are composition resources dropped because their team XR is gone.
		deleted []string
	}{
		"LongRolesOverBindings": {
			reason: "One Kubeconfig binding 48 roles is over the default 40 bindings: it is refused naming both fields, and so is every newer one.",
			tenant: grant(limits(i32(32), nil, nil, nil)),
			world: func(t *v1alpha1.Tenant) *testworld.World {
				return installation(t, many(3, withRoles(rolesOf(48, 64)))...)
			},
			composed: []string{"Workspace team-a"},
			messages: map[string]string{
				"k00": "spec.authorization.clusterRoleBindings.clusterRoles: Forbidden: granting it would make 48 ClusterRoleBindings in kcp for the team, over spec.limits.bindings of Tenant team-a (40; the team's older XRs hold 0)",
				"k01": "the team's older Kubeconfig k00 does not fit the budgets of Tenant team-a, so no newer XR is granted",
			},
			condition: "Kubeconfig k00, Kubeconfig k01, Kubeconfig k02",
		},
		"EveryLimitAtOnce": {
			reason: "A team at its largest limits with as many long roles per Kubeconfig as a team's XR holds gets what fits spec.limits.bytes, oldest first; the rest are refused naming spec.limits.bytes and the roles.",
			tenant: grant(limits(i32(32), i32(32), i32(400), i32(512<<10))),
			world: func(t *v1alpha1.Tenant) *testworld.World {
				team := many(32, withRoles(roles(26)))
				for i := range 32 {
					team = append(team, teamWorkspace(fmt.Sprintf("w%02d", i), int64(100+i)))
				}
				return installation(t, team...)
			},
			granted: []string{"Kubeconfig k00", "Kubeconfig k01", "Kubeconfig k02"},
			messages: map[string]string{
				"k03": "spec.authorization.clusterRoleBindings.clusterRoles: Forbidden: granting it would make about",
				"k04": "the team's older Kubeconfig k03 does not fit",
			},
			condition: "and 51 more refused",
			notListed: 32, maxMembers: MaxListedMembers,
		},
		"HugeWorkspace": {
			reason: "A Workspace with 32 bindings, small enough as an XR, is over spec.limits.bytes: it is refused naming spec.clusterRoleBindings, and the Kubeconfig before it keeps its grant.",
			tenant: grant(limits(nil, nil, i32(400), nil)),
			world: func(t *v1alpha1.Tenant) *testworld.World {
				return installation(t, teamKubeconfig("dev", 1), teamWorkspace("big", 2, huge(32, 1, 8)), teamWorkspace("small", 3))
			},
			composed: []string{"Kubeconfig team-a.dev", "Workspace team-a"},
			granted:  []string{"Kubeconfig dev"},
			messages: map[string]string{
				"big":   "spec.clusterRoleBindings: Forbidden: granting it would make about",
				"small": "the team's older Workspace big does not fit",
			},
		},
		"SchemaValidButTooLarge": {
			reason: "A schema-valid Workspace of 32 bindings of 64 long groups weighs more than a team's XR may: it is refused naming its spec, and does not hold back the newer one.",
			tenant: grant(limits(nil, nil, i32(400), nil)),
			world: func(t *v1alpha1.Tenant) *testworld.World {
				return installation(t, teamKubeconfig("dev", 1), teamWorkspace("big", 2, huge(32, 64, 180)), teamWorkspace("small", 3))
			},
			composed: []string{"Kubeconfig team-a.dev", "Workspace team-a.small", "Workspace team-a"},
			granted:  []string{"Kubeconfig dev", "Workspace small"},
			messages: map[string]string{"big": "spec: Forbidden: this Workspace weighs"},
		},
		"AnnotatedAfterGrant": {
			reason: "A granted Kubeconfig that the team then annotates past a team XR's size is refused naming metadata.annotations, and keeps what was composed for it.",
			tenant: grant(),
			world: func(t *v1alpha1.Tenant) *testworld.World {
				w := settled(t, installation(t, teamKubeconfig("dev", 1), teamKubeconfig("ops", 2)))
				return installation(t, teamKubeconfig("dev", 1, annotated(16<<10)), teamKubeconfig("ops", 2)).ComposedFrom(w)
			},
			composed: []string{"kept Kubeconfig team-a.dev", "Kubeconfig team-a.ops", "Workspace team-a"},
			granted:  []string{"Kubeconfig ops"},
			messages: map[string]string{"dev": "metadata.annotations: Forbidden: this Kubeconfig weighs"},
		},
		"QuotaMissing": {
			reason: "Without a ResourceQuota the Tenant does not read the team's XRs: it composes nothing new, keeps all it composed, and names the quota to apply.",
			tenant: grant(),
			world: func(t *v1alpha1.Tenant) *testworld.World {
				w := settled(t, installation(t, teamKubeconfig("dev", 1)))
				return unquoted(t, teamKubeconfig("dev", 1), teamKubeconfig("new", 2)).ComposedFrom(w)
			},
			composed:  []string{"kept Kubeconfig team-a.dev", "Workspace team-a"},
			condition: "Apply ResourceQuota kcp-team-xrs in namespace team-a with spec.hard count/kubeconfigs.kcp.crossplane.io: 32 and count/workspaces.kcp.crossplane.io: 32",
		},
		"QuotaTooLarge": {
			reason: "A quota above what the Tenant can read is no bound: as without one.",
			tenant: grant(),
			world: func(t *v1alpha1.Tenant) *testworld.World {
				w := settled(t, installation(t, teamKubeconfig("dev", 1)))
				return unquoted(t, teamKubeconfig("dev", 1), quota("big", 1000, 10)).ComposedFrom(w)
			},
			composed:  []string{"kept Kubeconfig team-a.dev", "Workspace team-a"},
			condition: "count/kubeconfigs.kcp.crossplane.io is bounded at 1000, above 32",
		},
		"QuotaHalf": {
			reason: "A quota that bounds Kubeconfigs but not Workspaces is no bound for the Workspaces, so the team's XRs are not read.",
			tenant: grant(),
			world: func(t *v1alpha1.Tenant) *testworld.World {
				return unquoted(t, teamKubeconfig("dev", 1), quota("kc", 10, -1))
			},
			composed:  []string{"Workspace team-a"},
			condition: "count/workspaces.kcp.crossplane.io is not bounded",
		},
		"LowestQuotaCounts": {
			reason: "The API server enforces every quota of a namespace: a second, lower one bounds the team.",
			tenant: grant(),
			world: func(t *v1alpha1.Tenant) *testworld.World {
				return unquoted(t, teamKubeconfig("dev", 1), quota("big", 1000, 1000), quota("low", 10, 10))
			},
			composed: []string{"Kubeconfig team-a.dev", "Workspace team-a"},
			granted:  []string{"Kubeconfig dev"},
		},
		"DeletingTheOverBudgetOne": {
			reason: "Once the team deletes the over-budget Kubeconfig, the newer one that waited is granted.",
			tenant: grant(),
			world: func(t *v1alpha1.Tenant) *testworld.World {
				w := settled(t, installation(t, teamKubeconfig("big", 1, withRoles(roles(64))), teamKubeconfig("dev", 2)))
				return w.Drop("TenantRequest", "kubeconfig-big")
			},
			composed: []string{"Kubeconfig team-a.dev", "Workspace team-a"},
			granted:  []string{"Kubeconfig dev"},
		},
		"DeletingOlderLetsNewerIn": {
			reason: "A newer Kubeconfig refused because the older ones hold spec.limits.bytes is granted once the team deletes an older one; only what was composed for the deleted one goes.",
			tenant: grant(limits(nil, nil, nil, i32(10<<10))),
			world: func(t *v1alpha1.Tenant) *testworld.World {
				w := settled(t, installation(t, teamKubeconfig("dev", 1), teamKubeconfig("ops", 2)))
				return w.Drop("TenantRequest", "kubeconfig-dev")
			},
			composed: []string{"Kubeconfig team-a.ops", "Workspace team-a"},
			granted:  []string{"Kubeconfig ops"},
			deleted:  []string{"kubeconfig-dev"},
		},
		"NewerWaitsForOlder": {
			reason: "The same team before the deletion: the older Kubeconfig holds the budget, the newer is refused naming spec.limits.bytes.",
			tenant: grant(limits(nil, nil, nil, i32(10<<10))),
			world: func(t *v1alpha1.Tenant) *testworld.World {
				return installation(t, teamKubeconfig("dev", 1), teamKubeconfig("ops", 2))
			},
			composed: []string{"Kubeconfig team-a.dev", "Workspace team-a"},
			granted:  []string{"Kubeconfig dev"},
			messages: map[string]string{"ops": "spec: Forbidden: granting it would make about 13"},
		},
		"LoweredBudgetKeeps": {
			reason: "The platform lowering spec.limits.bytes refuses the newest XRs beyond it and keeps what they had; the oldest keep theirs.",
			tenant: grant(limits(nil, nil, i32(400), i32(10<<10))),
			world: func(t *v1alpha1.Tenant) *testworld.World {
				return settled(grant(), installation(grant(), teamKubeconfig("dev", 1), teamKubeconfig("ops", 2), teamKubeconfig("ci", 3)))
			},
			composed: []string{"Kubeconfig team-a.dev", "kept Kubeconfig team-a.ops", "kept Kubeconfig team-a.ci", "Workspace team-a"},
			granted:  []string{"Kubeconfig dev"},
			messages: map[string]string{
				"ops": "over spec.limits.bytes of Tenant team-a (10240; the team's older XRs hold",
				"ci":  "the team's older Kubeconfig ops does not fit the budgets of Tenant team-a, so no newer XR is granted; shrink or delete it, or ask the platform team; what was composed for it before is kept unchanged",
			},
		},
		"OldestKeepsCapacity": {
			reason: "The oldest of three Tenants at the largest spec.limits.bytes keeps its grants: only newer Tenants are refused for the namespace's capacity.",
			tenant: grant(limits(nil, nil, nil, i32(512<<10))),
			world: func(t *v1alpha1.Tenant) *testworld.World {
				w := installation(t, teamKubeconfig("dev", 1))
				for i, n := range []string{"team-b", "team-c"} {
					w.Object(grant(limits(nil, nil, nil, i32(512<<10)), func(o *v1alpha1.Tenant) {
						o.Name, o.CreationTimestamp = n, metav1.NewTime(time.Unix(int64(200+i), 0))
					}))
				}
				return w
			},
			composed: []string{"Kubeconfig team-a.dev", "Workspace team-a"},
			granted:  []string{"Kubeconfig dev"},
		},
		"OverCapacity": {
			reason: "Tenants of a namespace at the largest spec.limits.bytes: the newest that would take the shared capacity over is refused whole, naming spec.limits; the older ones keep theirs.",
			tenant: grant(limits(nil, nil, nil, i32(512<<10)), func(t *v1alpha1.Tenant) { t.CreationTimestamp = metav1.NewTime(time.Unix(300, 0)) }),
			world: func(t *v1alpha1.Tenant) *testworld.World {
				w := installation(t)
				for _, n := range []string{"team-b", "team-c"} {
					w.Object(grant(limits(nil, nil, nil, i32(512<<10)), func(o *v1alpha1.Tenant) { o.Name = n }))
				}
				return w
			},
			errs: []string{"spec.limits: Forbidden: with the Tenants of namespace kcp created before it"},
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			st := tc.world(tc.tenant).State()
			r, errs := Compose(tc.tenant, st, validate)
			if len(tc.errs) > 0 || len(errs) > 0 {
				if len(errs) != len(tc.errs) {
					t.Fatalf("%s\nCompose(...) errors: want %q, got %v", tc.reason, tc.errs, errs)
				}
				for i, e := range errs {
					if !strings.Contains(e.Error(), tc.errs[i]) {
						t.Errorf("%s\nCompose(...) error %d: want it to contain %q, got %q", tc.reason, i, tc.errs[i], e.Error())
					}
				}
				return
			}
			// Whatever the team or the platform did, nothing composed before is dropped.
			desired := map[string]bool{}
			for _, o := range r.Desired.Objects() {
				desired[string(o.Name)] = true
			}
			for _, key := range st.ComposedNames() {
				if !desired[string(key)] && !slices.Contains(tc.deleted, string(key)) {
					t.Errorf("%s\n%s was composed before and is dropped", tc.reason, key)
				}
			}
			if tc.composed != nil {
				got, want := composedNames(r), slices.Clone(tc.composed)
				slices.Sort(got)
				slices.Sort(want)
				if diff := cmp.Diff(want, got); diff != "" {
					t.Errorf("%s\nCompose(...) composed: -want, +got:\n%s", tc.reason, diff)
				}
			}
			if diff := cmp.Diff(tc.granted, granted(r.Status.Members)); diff != "" {
				t.Errorf("%s\ngranted members: -want, +got:\n%s", tc.reason, diff)
			}
			for n, want := range tc.messages {
				found := false
				for _, m := range r.Status.Members {
					if m.Name == n {
						found = true
						if !strings.Contains(m.Message, want) {
							t.Errorf("%s\nmember %s: want its message to contain %q, got %q", tc.reason, n, want, m.Message)
						}
					}
				}
				if !found {
					t.Errorf("%s\nmember %s is not listed", tc.reason, n)
				}
			}
			if tc.condition != "" && (len(r.Conditions) == 0 || !strings.Contains(r.Conditions[0].Message, tc.condition)) {
				t.Errorf("%s\nMembersReady: want it to contain %q, got %+v", tc.reason, tc.condition, r.Conditions)
			}
			if r.Status.MembersNotListed != tc.notListed {
				t.Errorf("%s\nstatus.membersNotListed: want %d, got %d", tc.reason, tc.notListed, r.Status.MembersNotListed)
			}
			if tc.maxMembers > 0 && len(r.Status.Members) != tc.maxMembers {
				t.Errorf("%s\nstatus.members: want %d listed, got %d", tc.reason, tc.maxMembers, len(r.Status.Members))
			}
		})
	}
}

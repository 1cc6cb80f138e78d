package render

import (
	"context"
	"errors"
	"fmt"
	"testing"

	"github.com/google/go-cmp/cmp"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
)

// fakeFunction stands in for render plus the kcp function: it composes a Certificate, and a
// Deployment once the Certificate is observed Ready; the XR is Running once the Deployment
// is observed available.
func fakeFunction(_ context.Context, w World) (*Output, error) {
	out := &Output{XR: objects(`{apiVersion: kcp.crossplane.io/v1alpha1, kind: RootShard, metadata: {name: root}, status: {phase: Provisioning}}`)[0]}
	out.Composed = objects(certificate("root-ca", true, "ClusterIssuer", "selfsigned"))
	for _, o := range w.Observed {
		switch o.GetKind() {
		case "Certificate":
			conds, _, _ := unstructured.NestedSlice(o.Object, "status", "conditions")
			if len(conds) > 0 && conds[0].(map[string]any)["status"] == "True" {
				out.Composed = append(out.Composed, objects(`
apiVersion: apps/v1
kind: Deployment
metadata: {name: root-kcp, namespace: kcp, annotations: {crossplane.io/composition-resource-name: deployment-kcp}}
spec: {replicas: 2}
`)...)
			}
		case "Deployment":
			if n, _, _ := unstructured.NestedInt64(o.Object, "status", "availableReplicas"); n == 2 {
				out.XR.Object["status"] = map[string]any{"phase": "Running"}
			}
		}
	}
	return out, nil
}

// find returns the object of kind and name among objs, or nil.
func find(objs []*Object, kind, name string) *Object {
	for _, o := range objs {
		if o.GetKind() == kind && o.GetName() == name {
			return o
		}
	}
	return nil
}

// fakeRoot stands in for render plus the function for RootShard root: it composes a CA
// Certificate, is Running once it observes it issued, and lists the Shards it requires.
func fakeRoot(renders *int) RenderFunc {
	return func(_ context.Context, w World) (*Output, error) {
		*renders++
		if find(w.Required, "RootShard", "root") != nil {
			return nil, errors.New("RootShard root is offered to its own render")
		}
		phase := "Provisioning"
		if c := find(w.Observed, "Certificate", "root-server-ca"); c != nil {
			if conds, _, _ := unstructured.NestedSlice(c.Object, "status", "conditions"); len(conds) > 0 {
				phase = "Running"
			}
		}
		shards := []any{}
		for _, o := range w.Required {
			if o.GetKind() == "Shard" {
				shards = append(shards, o.GetName())
			}
		}
		xr := objects(rootShard)[0]
		xr.Object["status"] = map[string]any{"phase": phase, "shards": shards}
		return &Output{XR: xr, Composed: objects(certificate("root-server-ca", true, "ClusterIssuer", "selfsigned"))}, nil
	}
}

// fakeShard stands in for render plus the function for Shard shard1: it composes its
// Deployment once the RootShard's CA Secret exists, and is Running once the Deployment is
// available and the RootShard it requires is Running.
func fakeShard(renders *int) RenderFunc {
	return func(_ context.Context, w World) (*Output, error) {
		*renders++
		if find(w.Required, "Shard", "shard1") != nil {
			return nil, errors.New("Shard shard1 is offered to its own render")
		}
		out := &Output{XR: objects(shard)[0]}
		if find(w.Required, "Secret", "root-server-ca") != nil {
			out.Composed = objects(`
apiVersion: apps/v1
kind: Deployment
metadata: {name: shard1, namespace: kcp, annotations: {crossplane.io/composition-resource-name: deployment-shard}}
spec: {replicas: 1}
`)
		}
		phase := "Provisioning"
		available := false
		if d := find(w.Observed, "Deployment", "shard1"); d != nil {
			n, _, _ := unstructured.NestedInt64(d.Object, "status", "availableReplicas")
			available = n == 1
		}
		if root := find(w.Required, "RootShard", "root"); root != nil && available {
			if p, _, _ := unstructured.NestedString(root.Object, "status", "phase"); p == "Running" {
				phase = "Running"
			}
		}
		out.XR.Object["status"] = map[string]any{"phase": phase}
		return out, nil
	}
}

func fatalRender(xr string) RenderFunc {
	return func(context.Context, World) (*Output, error) {
		return fatalOutput(objects(xr)[0], "compose-kcp", "invalid"), nil
	}
}

func TestConverge(t *testing.T) {
	type args struct {
		// renders[i] renders XR i. Its fresh render is by fresh[i] if set, else renders[i];
		// fatal[i] makes it Fatal instead.
		renders, fresh []RenderFunc
		fatal          []bool
	}
	type want struct {
		iterations int
		composed   [][]string
		phases     []string
		fatal      []bool
		renders    []int
		err        string
	}
	var counts []int
	counting := func(fs ...func(*int) RenderFunc) []RenderFunc {
		counts = make([]int, len(fs))
		out := make([]RenderFunc, len(fs))
		for i, f := range fs {
			out[i] = f(&counts[i])
		}
		return out
	}
	never := func(string) RenderFunc {
		return func(context.Context, World) (*Output, error) { return nil, errors.New("must not render") }
	}
	cases := map[string]struct {
		reason string
		args   func() args
		want   want
	}{
		"OneXR": {
			reason: "The Deployment appears after the Certificate is issued; the next render changes only the XR status, which no other XR sees, so it is the last.",
			args:   func() args { return args{renders: []RenderFunc{fakeFunction}} },
			want:   want{iterations: 2, composed: [][]string{{"certificate-root-ca", "deployment-kcp"}}, phases: []string{"Running"}, fatal: []bool{false}},
		},
		"SharedWorldSettles": {
			reason: "The Shard composes its Deployment once the RootShard's CA Secret exists and is Running once the RootShard it requires is; " +
				"XRs whose world did not change are not rendered again, and neither XR is offered to its own render.",
			args: func() args { return args{renders: counting(fakeRoot, fakeShard)} },
			want: want{
				iterations: 3,
				composed:   [][]string{{"certificate-root-server-ca"}, {"deployment-shard"}},
				phases:     []string{"Running", "Running"},
				fatal:      []bool{false, false},
				renders:    []int{2, 2},
			},
		},
		"AllFatalFresh": {
			reason: "When every fresh render is Fatal the world stays the fresh one: nothing is rendered again.",
			args: func() args {
				return args{renders: []RenderFunc{never(rootShard), never(shard)}, fatal: []bool{true, true}}
			},
			want: want{iterations: 0, composed: [][]string{nil, nil}, phases: []string{"", ""}, fatal: []bool{true, true}},
		},
		"FatalKeepsLastGoodRender": {
			reason: "A Fatal render is the XR's converged render, but Crossplane applies and deletes nothing then: the world keeps what its last good render composed.",
			args: func() args {
				rs := counting(fakeRoot, fakeShard)
				fresh := []RenderFunc{rs[0], rs[1]}
				rs[0] = fatalRender(rootShard)
				return args{renders: rs, fresh: fresh}
			},
			want: want{
				iterations: 2,
				composed:   [][]string{nil, {"deployment-shard"}},
				phases:     []string{"", "Provisioning"},
				fatal:      []bool{true, false},
			},
		},
		"RenderError": {
			reason: "A failing render fails convergence.",
			args: func() args {
				rs := counting(fakeRoot, fakeShard)
				fresh := []RenderFunc{rs[0], rs[1]}
				rs[1] = func(context.Context, World) (*Output, error) { return nil, errors.New("boom") }
				return args{renders: rs, fresh: fresh}
			},
			want: want{iterations: 1, err: "boom"},
		},
		"NeverSettles": {
			reason: "A function that changes a composed resource on every render fails after MaxIterations, naming the XR and the resource.",
			args: func() args {
				rs := counting(fakeRoot, fakeShard)
				n := 0
				rs[1] = func(context.Context, World) (*Output, error) {
					n++
					return &Output{XR: objects(shard)[0], Composed: objects(composed("ConfigMap", "c", fmt.Sprintf("data: {render: %q}", fmt.Sprint(n))))}, nil
				}
				return args{renders: rs}
			},
			want: want{iterations: MaxIterations, err: "renders still change after 14 iterations against the simulated world, " +
				"the last one changed Shard kcp/shard1: configmap-c: the function never settles"},
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			counts = nil
			a := tc.args()
			// The fresh renders, as RenderExample does them.
			xrs := objects(rootShard, shard)[:len(a.renders)]
			sim := Simulator{PKI: fakePKI}
			worlds, err := sim.Fresh(xrs)
			if err != nil {
				t.Fatal(err)
			}
			fresh := make([]*Output, len(a.renders))
			for i, r := range a.renders {
				if i < len(a.fatal) && a.fatal[i] {
					fresh[i] = fatalOutput(xrs[i], "compose-kcp", "invalid")
					continue
				}
				if i < len(a.fresh) {
					r = a.fresh[i]
				}
				if fresh[i], err = r(context.Background(), worlds[i]); err != nil {
					t.Fatal(err)
				}
			}
			for i := range counts {
				counts[i] = 0
			}

			got, n, err := Converge(context.Background(), sim, fresh, worlds, a.renders, nil)
			if diff := cmp.Diff(tc.want.err, errorString(t, err)); diff != "" {
				t.Fatalf("%s\nConverge(...): -want error, +got error:\n%s", tc.reason, diff)
			}
			if diff := cmp.Diff(tc.want.iterations, n); diff != "" {
				t.Errorf("%s\nConverge(...) iterations: -want, +got:\n%s", tc.reason, diff)
			}
			if err != nil {
				return
			}
			var composed [][]string
			var phases []string
			var fatals []bool
			for _, o := range got {
				var names []string
				for _, c := range o.Composed {
					names = append(names, c.GetAnnotations()[AnnotationResourceName])
				}
				composed = append(composed, names)
				phase, _, _ := unstructured.NestedString(o.XR.Object, "status", "phase")
				phases = append(phases, phase)
				fatals = append(fatals, o.Fatal)
			}
			if diff := cmp.Diff(tc.want.composed, composed); diff != "" {
				t.Errorf("%s\nConverge(...) composed: -want, +got:\n%s", tc.reason, diff)
			}
			if diff := cmp.Diff(tc.want.phases, phases); diff != "" {
				t.Errorf("%s\nConverge(...) XR phases: -want, +got:\n%s", tc.reason, diff)
			}
			if diff := cmp.Diff(tc.want.fatal, fatals); diff != "" {
				t.Errorf("%s\nConverge(...) Fatal: -want, +got:\n%s", tc.reason, diff)
			}
			if tc.want.renders != nil {
				if diff := cmp.Diff(tc.want.renders, counts); diff != "" {
					t.Errorf("%s\nConverge(...) renders per XR: -want, +got:\n%s", tc.reason, diff)
				}
			}
		})
	}
}

func TestChangedResources(t *testing.T) {
	cm := func(name, value string) string {
		return fmt.Sprintf(`{apiVersion: v1, kind: ConfigMap, metadata: {name: %s, annotations: {crossplane.io/composition-resource-name: %s}}, data: {v: %q}}`, name, name, value)
	}
	type args struct {
		before, after []string
	}
	cases := map[string]struct {
		reason string
		args   args
		want   []string
	}{
		"Same": {
			reason: "Equal content in any order is no change.",
			args:   args{before: []string{cm("a", "1"), cm("b", "1")}, after: []string{cm("b", "1"), cm("a", "1")}},
		},
		"AddedRemovedChanged": {
			reason: "Added, removed and changed resources are all named, sorted.",
			args:   args{before: []string{cm("a", "1"), cm("c", "1"), cm("d", "1")}, after: []string{cm("b", "1"), cm("c", "2"), cm("d", "1")}},
			want:   []string{"a", "b", "c"},
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			got, err := changedResources(objects(tc.args.before...), objects(tc.args.after...))
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("%s\nchangedResources(...): -want, +got:\n%s", tc.reason, diff)
			}
		})
	}
}

// TestConvergeComposedXR: an XR that another XR composes is reconciled too. The parent
// composes a RootShard with spec.replicas 1, and 2 once it observes the RootShard Running; the
// RootShard is Running once its Certificate is issued and reports the replicas it was given.
// The parent must observe the child with its status, and the child must be rendered again
// with the changed spec.
func TestConvergeComposedXR(t *testing.T) {
	parent := func(_ context.Context, w World) (*Output, error) {
		replicas, phase := int64(1), "Provisioning"
		if c := find(w.Observed, "RootShard", "root"); c != nil {
			if p, _, _ := unstructured.NestedString(c.Object, "status", "phase"); p == "Running" {
				replicas, phase = 2, "Running"
			}
		}
		xr := objects(`{apiVersion: kcp.crossplane.io/v1alpha1, kind: KcpInstallation, metadata: {name: dev, namespace: kcp}}`)[0]
		xr.Object["status"] = map[string]any{"phase": phase}
		child := objects(`{apiVersion: kcp.crossplane.io/v1alpha1, kind: RootShard, metadata: {name: root, namespace: kcp, annotations: {crossplane.io/composition-resource-name: rootshard}}}`)[0]
		child.Object["spec"] = map[string]any{"replicas": replicas}
		return &Output{XR: xr, Composed: []*Object{child}}, nil
	}
	childRenders := 0
	spawn := func(xr *Object) (RenderFunc, error) {
		if xr.GetKind() != "RootShard" {
			return nil, fmt.Errorf("unexpected %s", xr.GetKind())
		}
		return func(_ context.Context, w World) (*Output, error) {
			childRenders++
			replicas, _, _ := unstructured.NestedInt64(xr.Object, "spec", "replicas")
			out := &Output{XR: xr.DeepCopy(), Composed: objects(certificate("root-server-ca", true, "ClusterIssuer", "selfsigned"))}
			phase := "Provisioning"
			if c := find(w.Observed, "Certificate", "root-server-ca"); c != nil {
				phase = "Running"
			}
			out.XR.Object["status"] = map[string]any{"phase": phase, "replicas": replicas}
			return out, nil
		}, nil
	}
	sim := Simulator{PKI: fakePKI}
	worlds, err := sim.Fresh(objects(`{apiVersion: kcp.crossplane.io/v1alpha1, kind: KcpInstallation, metadata: {name: dev, namespace: kcp}}`))
	if err != nil {
		t.Fatal(err)
	}
	fresh, err := parent(context.Background(), worlds[0])
	if err != nil {
		t.Fatal(err)
	}
	got, _, err := Converge(context.Background(), sim, []*Output{fresh}, worlds, []RenderFunc{parent}, spawn)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 2 {
		t.Fatalf("Converge(...) returned %d outputs, want the parent's and the RootShard's", len(got))
	}
	phase := func(o *Output, field string) any { return o.XR.Object["status"].(map[string]any)[field] }
	if phase(got[0], "phase") != "Running" || phase(got[1], "phase") != "Running" || phase(got[1], "replicas") != int64(2) {
		t.Errorf("parent %v, RootShard %v: want both Running and the RootShard rendered with replicas 2", got[0].XR.Object["status"], got[1].XR.Object["status"])
	}
	if len(got[1].Composed) != 1 || got[1].Composed[0].GetKind() != "Certificate" {
		t.Errorf("the RootShard composed %v, want its Certificate", got[1].Composed)
	}
	if childRenders < 2 {
		t.Errorf("the RootShard was rendered %d times, want again after its spec changed", childRenders)
	}
}

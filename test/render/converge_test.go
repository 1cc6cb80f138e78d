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

func TestConverge(t *testing.T) {
	type args struct {
		fresh  *Output
		render RenderFunc
	}
	type want struct {
		iterations int
		composed   []string
		phase      string
		err        string
	}
	fresh := func() *Output { o, _ := fakeFunction(context.Background(), World{}); return o }
	renders := 0
	cases := map[string]struct {
		reason string
		args   args
		want   want
	}{
		"SettlesWhenComposedStopsChanging": {
			reason: "The Deployment appears after the Certificate is issued; the next render changes only the XR status, so it is the last.",
			args:   args{fresh: fresh(), render: fakeFunction},
			want:   want{iterations: 2, composed: []string{"certificate-root-ca", "deployment-kcp"}, phase: "Running"},
		},
		"FatalFresh": {
			reason: "A Fatal fresh render is the result; nothing is rendered again.",
			args: args{
				fresh: func() *Output { o := fresh(); o.Fatal = true; return o }(),
				render: func(context.Context, World) (*Output, error) {
					return nil, errors.New("must not render")
				},
			},
			want: want{iterations: 0, composed: []string{"certificate-root-ca"}, phase: "Provisioning"},
		},
		"FatalLater": {
			reason: "A Fatal render ends convergence with that render.",
			args: args{fresh: fresh(), render: func(ctx context.Context, w World) (*Output, error) {
				o, err := fakeFunction(ctx, w)
				o.Fatal = true
				return o, err
			}},
			want: want{iterations: 1, composed: []string{"certificate-root-ca", "deployment-kcp"}, phase: "Provisioning"},
		},
		"RenderError": {
			reason: "A failing render fails convergence.",
			args: args{fresh: fresh(), render: func(context.Context, World) (*Output, error) {
				return nil, errors.New("boom")
			}},
			want: want{iterations: 1, err: "boom"},
		},
		"NeverSettles": {
			reason: "A function that changes a composed resource on every render fails after MaxIterations, naming it.",
			args: args{fresh: fresh(), render: func(context.Context, World) (*Output, error) {
				renders++
				o := fresh()
				o.Composed = append(o.Composed, objects(fmt.Sprintf(`
apiVersion: v1
kind: ConfigMap
metadata: {name: c, namespace: kcp, annotations: {crossplane.io/composition-resource-name: configmap-c}}
data: {render: "%d"}
`, renders))...)
				return o, nil
			}},
			want: want{iterations: MaxIterations, err: "composed resources still change after 10 renders against the simulated world, " +
				"the last one changed configmap-c: the function never settles"},
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			got, n, err := Converge(context.Background(), Simulator{PKI: fakePKI}, tc.args.fresh, tc.args.render)
			if diff := cmp.Diff(tc.want.err, errorString(t, err)); diff != "" {
				t.Fatalf("%s\nConverge(...): -want error, +got error:\n%s", tc.reason, diff)
			}
			if diff := cmp.Diff(tc.want.iterations, n); diff != "" {
				t.Errorf("%s\nConverge(...) iterations: -want, +got:\n%s", tc.reason, diff)
			}
			if err != nil {
				return
			}
			var names []string
			for _, o := range got.Composed {
				names = append(names, o.GetAnnotations()[AnnotationResourceName])
			}
			if diff := cmp.Diff(tc.want.composed, names); diff != "" {
				t.Errorf("%s\nConverge(...) composed: -want, +got:\n%s", tc.reason, diff)
			}
			phase, _, _ := unstructured.NestedString(got.XR.Object, "status", "phase")
			if diff := cmp.Diff(tc.want.phase, phase); diff != "" {
				t.Errorf("%s\nConverge(...) XR phase: -want, +got:\n%s", tc.reason, diff)
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

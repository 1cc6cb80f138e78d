package render

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

const (
	xrDoc       = "{apiVersion: kcp.crossplane.io/v1alpha1, kind: RootShard, metadata: {name: root}, status: {phase: Running}}"
	composedDoc = "{apiVersion: cert-manager.io/v1, kind: Issuer, metadata: {name: i, annotations: {crossplane.io/composition-resource-name: issuer-i}}, spec: {ca: {secretName: s}}, status: {conditions: null}}"
	selectedDoc = "{apiVersion: render.crossplane.io/v1beta1, kind: Result, message: 'Successfully selected composition: rootshards.kcp.crossplane.io', reason: SelectComposition, severity: Normal}"
	notReadyDoc = `{apiVersion: render.crossplane.io/v1beta1, kind: Result, message: 'Composed resource "issuer-i" is not yet ready', reason: ComposeResources, severity: Normal}`
	warningDoc  = "{apiVersion: render.crossplane.io/v1beta1, kind: Result, message: spec.foo is deprecated, severity: Warning, step: compose-kcp}"
	contextDoc  = "{apiVersion: render.crossplane.io/v1beta1, kind: Context, fields: {}}"
)

func TestSplitOutput(t *testing.T) {
	type want struct {
		xr       []string
		composed []string
		results  []string
		err      string
	}
	cases := map[string]struct {
		reason string
		docs   []string
		want   want
	}{
		"XRComposedResults": {
			reason: "The first document is the XR, render.crossplane.io Results are results, Contexts are dropped, the rest is composed.",
			docs:   []string{xrDoc, composedDoc, selectedDoc, warningDoc, contextDoc},
			want:   want{xr: []string{xrDoc}, composed: []string{composedDoc}, results: []string{selectedDoc, warningDoc}},
		},
		"NoXR": {
			reason: "Output without an XR is not render output.",
			docs:   []string{selectedDoc},
			want:   want{err: "render output holds no composite resource"},
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			got, err := SplitOutput(objects(tc.docs...))
			if diff := cmp.Diff(tc.want.err, errorString(t, err)); diff != "" {
				t.Fatalf("%s\nSplitOutput(...): -want error, +got error:\n%s", tc.reason, diff)
			}
			if err != nil {
				return
			}
			if diff := cmp.Diff(contents(objects(tc.want.xr...)), contents([]*Object{got.XR})); diff != "" {
				t.Errorf("%s\nSplitOutput(...).XR: -want, +got:\n%s", tc.reason, diff)
			}
			if diff := cmp.Diff(contents(objects(tc.want.composed...)), contents(got.Composed)); diff != "" {
				t.Errorf("%s\nSplitOutput(...).Composed: -want, +got:\n%s", tc.reason, diff)
			}
			if diff := cmp.Diff(contents(objects(tc.want.results...)), contents(got.Results)); diff != "" {
				t.Errorf("%s\nSplitOutput(...).Results: -want, +got:\n%s", tc.reason, diff)
			}
		})
	}
}

func TestGoldenAndResources(t *testing.T) {
	out := &Output{
		XR:       objects(xrDoc)[0],
		Composed: objects(composedDoc),
		Results:  objects(selectedDoc, notReadyDoc, warningDoc),
	}
	cases := map[string]struct {
		reason string
		got    func() ([]byte, error)
		want   string
	}{
		"Golden": {
			reason: "Golden files keep the XR, composed resources and function results, but not Crossplane's bookkeeping results.",
			got:    out.Golden,
			want: `---
apiVersion: kcp.crossplane.io/v1alpha1
kind: RootShard
metadata:
  name: root
status:
  phase: Running
---
apiVersion: cert-manager.io/v1
kind: Issuer
metadata:
  annotations:
    crossplane.io/composition-resource-name: issuer-i
  name: i
spec:
  ca:
    secretName: s
status:
  conditions: null
---
apiVersion: render.crossplane.io/v1beta1
kind: Result
message: spec.foo is deprecated
severity: Warning
step: compose-kcp
`,
		},
		"Resources": {
			reason: "Validation sees the XR with its status and composed resources without theirs, and no results.",
			got:    out.Resources,
			want: `---
apiVersion: kcp.crossplane.io/v1alpha1
kind: RootShard
metadata:
  name: root
status:
  phase: Running
---
apiVersion: cert-manager.io/v1
kind: Issuer
metadata:
  annotations:
    crossplane.io/composition-resource-name: issuer-i
  name: i
spec:
  ca:
    secretName: s
`,
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			got, err := tc.got()
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tc.want, string(got)); diff != "" {
				t.Errorf("%s\n-want, +got:\n%s", tc.reason, diff)
			}
		})
	}
	// Resources must not strip status from the output itself.
	if _, ok := out.Composed[0].Object["status"]; !ok {
		t.Error("Resources() removed status from the Output's composed resource")
	}
}

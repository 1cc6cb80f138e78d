package sharing

import (
	"strings"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/configuration-kcp/configuration-kcp/apis/v1alpha1"
)

// weighing returns a team Workspace whose metadata and spec weigh exactly n bytes, the rest
// after mod in an annotation.
func weighing(n int, mod func(*v1alpha1.Workspace)) *v1alpha1.Workspace {
	ws := &v1alpha1.Workspace{ObjectMeta: metav1.ObjectMeta{Name: "w", Namespace: "team-a"}}
	mod(ws)
	ws.Annotations = map[string]string{"filler": ""}
	w, _ := weigh(ws)
	ws.Annotations["filler"] = strings.Repeat("f", n-w)
	return ws
}

func TestCheckStoredSize(t *testing.T) {
	nothing := func(*v1alpha1.Workspace) {}
	groups := func(n, size int) func(*v1alpha1.Workspace) {
		return func(ws *v1alpha1.Workspace) {
			var gs []string
			for range n {
				gs = append(gs, strings.Repeat("g", size))
			}
			ws.Spec.ClusterRoleBindings = []v1alpha1.WorkspaceClusterRoleBinding{{ClusterRole: "edit", Groups: gs}}
		}
	}
	managers := func(n int) func(*v1alpha1.Workspace) {
		return func(ws *v1alpha1.Workspace) {
			for i := range n {
				ws.ManagedFields = append(ws.ManagedFields, metav1.ManagedFieldsEntry{Manager: strings.Repeat("m", 100) + string(rune('a'+i%26)), Operation: metav1.ManagedFieldsOperationApply,
					FieldsType: "FieldsV1", FieldsV1: metav1.NewFieldsV1(`{"f:spec":{"f:clusterRoleBindings":{}}}`)})
			}
		}
	}
	cases := map[string]struct {
		reason string
		ws     *v1alpha1.Workspace
		// want is part of the one error, "" for none.
		want string
	}{
		"AtTheLimit": {
			reason: "A team's XR of exactly TeamXRBytes is read.",
			ws:     weighing(TeamXRBytes, nothing),
		},
		"AnnotationsOverTheLimit": {
			reason: "One byte more, in an annotation (kubectl's last-applied copy is one), is refused naming metadata.annotations and how to avoid it.",
			ws:     weighing(TeamXRBytes+1, nothing),
			want:   "metadata.annotations: Forbidden: this Workspace weighs 6145 bytes in metadata and spec",
		},
		"LargeSpec": {
			reason: "A schema-valid spec larger than a team's XR may weigh is refused naming spec.",
			ws:     weighing(2*TeamXRBytes, groups(40, 200)),
			want:   "spec: Forbidden: this Workspace weighs 12288 bytes in metadata and spec",
		},
		"StatusNotCounted": {
			reason: "The status is Crossplane's and the function's, bounded by them: a long refusal in it does not turn an XR at the limit into one over it.",
			ws: func() *v1alpha1.Workspace {
				ws := weighing(TeamXRBytes, nothing)
				ws.Status.Path = strings.Repeat("p", 4*TeamXRBytes)
				return ws
			}(),
		},
		"ManyFieldManagers": {
			reason: "Managed fields of many field managers count: they are sent with the XR.",
			ws:     weighing(4*TeamXRBytes, managers(80)),
			want:   "metadata.managedFields: Forbidden: this Workspace weighs 24576 bytes in metadata and spec",
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			errs := CheckStoredSize("Workspace", tc.ws)
			switch {
			case tc.want == "" && len(errs) > 0:
				t.Errorf("%s\nCheckStoredSize(...): want no error, got %v", tc.reason, errs)
			case tc.want != "" && (len(errs) != 1 || !strings.Contains(errs[0].Error(), tc.want)):
				t.Errorf("%s\nCheckStoredSize(...): want one error containing %q, got %v", tc.reason, tc.want, errs)
			}
		})
	}
}

package rootshard

import (
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"

	"github.com/configuration-kcp/configuration-kcp/apis/v1alpha1"
	"github.com/configuration-kcp/configuration-kcp/functions/kcp/internal/names"
	"github.com/configuration-kcp/configuration-kcp/functions/kcp/internal/testworld"
)

// TestEncryptionRotation walks a running root shard through turning encryption on, rotating
// to a second key and dropping the first, each reconcile observing what the previous one
// composed (Deployments rolled out at once, the rewrite Job succeeding), and checks the phases
// it goes through, that the Deployment is never left out, and what kcp is given at the end.
func TestEncryptionRotation(t *testing.T) {
	keySecrets := func(w *testworld.World) {
		w.SecretData("key-1", map[string]string{"key": strings.Repeat("1", 32)})
		w.SecretData("key-2", map[string]string{"key": strings.Repeat("2", 32)})
	}
	r, _ := converge(basic(), keySecrets)
	withKeys := func(keys ...string) *v1alpha1.RootShard {
		return basic(func(rs *v1alpha1.RootShard) {
			rs.Spec.Encryption = &v1alpha1.Encryption{Keys: []v1alpha1.EncryptionKey{}}
			for _, k := range keys {
				rs.Spec.Encryption.Keys = append(rs.Spec.Encryption.Keys, v1alpha1.EncryptionKey{Name: k, SecretRef: v1alpha1.LocalDataKeyReference{Name: k, Key: "key"}})
			}
		})
	}
	// walk reconciles until the phase is Rotated with no Job left and the pods run it, and
	// returns the phases
	// passed, each once.
	walk := func(rs *v1alpha1.RootShard) []v1alpha1.EncryptionPhase {
		t.Helper()
		var phases []v1alpha1.EncryptionPhase
		for range 12 {
			w := testworld.New()
			keySecrets(w)
			w.Issued(r.Desired, 1).Exists(r.Desired)
			jobs := 0
			for _, o := range r.Desired.Objects() {
				if j, ok := o.Resource.(*batchv1.Job); ok {
					jobs++
					w.Put(o.Name, map[string]any{"apiVersion": "batch/v1", "kind": "Job", "metadata": map[string]any{"name": j.Name},
						"status": map[string]any{"conditions": []any{map[string]any{"type": "Complete", "status": "True"}}}})
				}
			}
			r = composeOK(rs, w.State())
			if !r.Desired.Has("deployment-kcp") {
				t.Fatalf("the Deployment was left out during the rotation (phases so far %v): Crossplane would delete the running kcp", phases)
			}
			if e := r.Status.Encryption; e != nil && (len(phases) == 0 || phases[len(phases)-1] != e.Phase) {
				phases = append(phases, e.Phase)
			}
			e := r.Status.Encryption
			if e == nil || e.Phase != v1alpha1.EncryptionRotated || jobs > 0 {
				continue
			}
			// Rotated, and the pods run what the status says.
			running := deployment(t, r, "deployment-kcp").Spec.Template.Annotations[names.AnnotationEncryption]
			if running == "secrets;"+strings.Join(append([]string{e.Writer}, e.Readers...), ",") {
				return phases
			}
		}
		t.Fatalf("no rotation end after 12 reconciles: phases %v", phases)
		return nil
	}
	full := []v1alpha1.EncryptionPhase{v1alpha1.EncryptionAddingKey, v1alpha1.EncryptionSwitchingWriter, v1alpha1.EncryptionRewriting, v1alpha1.EncryptionRotated}

	if diff := cmp.Diff(full, walk(withKeys("key-1"))); diff != "" {
		t.Errorf("Turning encryption on for a running root shard goes through every step (-want, +got):\n%s", diff)
	}
	if diff := cmp.Diff(full, walk(withKeys("key-2", "key-1"))); diff != "" {
		t.Errorf("Rotating to a new key goes through every step (-want, +got):\n%s", diff)
	}
	if diff := cmp.Diff(&v1alpha1.EncryptionStatus{Phase: v1alpha1.EncryptionRotated, Writer: "secretbox:key-2", Readers: []string{"secretbox:key-1", "identity"}, Rewritten: "secretbox:key-2"}, r.Status.Encryption); diff != "" {
		t.Errorf("status after the rotation (-want, +got):\n%s", diff)
	}
	if diff := cmp.Diff([]v1alpha1.EncryptionPhase{v1alpha1.EncryptionRotated}, walk(withKeys("key-2"))); diff != "" {
		t.Errorf("Dropping the old key after the rewrite needs no step (-want, +got):\n%s", diff)
	}

	d := deployment(t, r, "deployment-kcp")
	if !slices.Contains(d.Spec.Template.Spec.Containers[0].Args, "--encryption-provider-config=/etc/kcp/encryption/config.yaml") {
		t.Errorf("kcp is not given its encryption configuration: %v", d.Spec.Template.Spec.Containers[0].Args)
	}
	if !slices.ContainsFunc(d.Spec.Template.Spec.Volumes, func(v corev1.Volume) bool { return v.Secret != nil && v.Secret.SecretName == "root-encryption-config" }) {
		t.Errorf("the configuration Secret is not mounted: %v", d.Spec.Template.Spec.Volumes)
	}
	if got, want := d.Spec.Template.Annotations[names.AnnotationEncryption], "secrets;secretbox:key-2,identity"; got != want {
		t.Errorf("pod annotation %s = %q, want %q: the pods roll with each step", names.AnnotationEncryption, got, want)
	}
}

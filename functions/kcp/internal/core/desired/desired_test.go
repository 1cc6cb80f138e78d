package desired

import (
	"encoding/base64"
	"slices"
	"testing"

	cmv1 "github.com/cert-manager/cert-manager/pkg/apis/certmanager/v1"
	cmmeta "github.com/cert-manager/cert-manager/pkg/apis/meta/v1"
	"github.com/google/go-cmp/cmp"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/configuration-kcp/configuration-kcp/functions/kcp/internal/core/resource"
)

func configMap(name string, data map[string]string) *corev1.ConfigMap {
	return &corev1.ConfigMap{
		TypeMeta:   metav1.TypeMeta{APIVersion: "v1", Kind: "ConfigMap"},
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: "kcp"},
		Data:       data,
	}
}

func secret(name string, data map[string][]byte) *corev1.Secret {
	return &corev1.Secret{
		TypeMeta:   metav1.TypeMeta{APIVersion: "v1", Kind: "Secret"},
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: "kcp"},
		Type:       corev1.SecretTypeOpaque,
		Data:       data,
	}
}

func observed(obj map[string]any) *resource.Unstructured {
	u := resource.NewUnstructured()
	u.Object = obj
	return u
}

func TestSet(t *testing.T) {
	type entry struct {
		Name  resource.Name
		Kind  string
		Value string
		Ready resource.Ready
	}
	summarize := func(s *Set) []entry {
		var out []entry
		for _, o := range s.Objects() {
			e := entry{Name: o.Name, Ready: o.Ready}
			switch r := o.Resource.(type) {
			case *corev1.ConfigMap:
				e.Kind, e.Value = "ConfigMap", r.Data["v"]
			case nil:
				e.Kind, e.Value = "Kept", o.Kept.GetName()
			}
			out = append(out, e)
		}
		return out
	}
	cases := map[string]struct {
		reason string
		build  func(s *Set)
		want   []entry
		names  []resource.Name
	}{
		"Empty": {
			reason: "A zero Set is usable and empty.",
			build:  func(*Set) {},
			want:   nil,
			names:  []resource.Name{},
		},
		"InsertionOrder": {
			reason: "Objects keep insertion order; Names are sorted.",
			build: func(s *Set) {
				s.Add("c", configMap("c", map[string]string{"v": "1"}), resource.ReadyTrue)
				s.Add("a", configMap("a", map[string]string{"v": "2"}), resource.ReadyFalse)
				s.Keep("b", observed(map[string]any{"apiVersion": "v1", "kind": "Secret", "metadata": map[string]any{"name": "b"}}), resource.ReadyTrue)
			},
			want: []entry{
				{Name: "c", Kind: "ConfigMap", Value: "1", Ready: resource.ReadyTrue},
				{Name: "a", Kind: "ConfigMap", Value: "2", Ready: resource.ReadyFalse},
				{Name: "b", Kind: "Kept", Value: "b", Ready: resource.ReadyTrue},
			},
			names: []resource.Name{"a", "b", "c"},
		},
		"ReplaceKeepsPosition": {
			reason: "Adding a name again replaces the object in its original position; Keep can replace Add and vice versa.",
			build: func(s *Set) {
				s.Add("a", configMap("a", map[string]string{"v": "1"}), resource.ReadyFalse)
				s.Add("b", configMap("b", map[string]string{"v": "1"}), resource.ReadyFalse)
				s.Add("a", configMap("a", map[string]string{"v": "2"}), resource.ReadyTrue)
				s.Keep("b", observed(map[string]any{"apiVersion": "v1", "kind": "ConfigMap", "metadata": map[string]any{"name": "kept-b"}}), resource.ReadyTrue)
			},
			want: []entry{
				{Name: "a", Kind: "ConfigMap", Value: "2", Ready: resource.ReadyTrue},
				{Name: "b", Kind: "Kept", Value: "kept-b", Ready: resource.ReadyTrue},
			},
			names: []resource.Name{"a", "b"},
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			var s Set
			tc.build(&s)
			if diff := cmp.Diff(tc.want, summarize(&s)); diff != "" {
				t.Errorf("%s\nObjects(): -want, +got:\n%s", tc.reason, diff)
			}
			if diff := cmp.Diff(tc.names, s.Names()); diff != "" {
				t.Errorf("%s\nNames(): -want, +got:\n%s", tc.reason, diff)
			}
			for _, e := range tc.want {
				if !s.Has(e.Name) {
					t.Errorf("%s\nHas(%q) = false, want true", tc.reason, e.Name)
				}
				if o, ok := s.Get(e.Name); !ok || o.Name != e.Name {
					t.Errorf("%s\nGet(%q) = %v, %v", tc.reason, e.Name, o.Name, ok)
				}
			}
			if s.Has("missing") {
				t.Errorf("%s\nHas(\"missing\") = true, want false", tc.reason)
			}
			if _, ok := s.Get("missing"); ok {
				t.Errorf("%s\nGet(\"missing\") ok = true, want false", tc.reason)
			}
		})
	}
}

func TestComposed(t *testing.T) {
	var s Set
	s.Add("configmap", configMap("cm", map[string]string{"k": "v"}), resource.ReadyTrue)
	s.Add("certificate", &cmv1.Certificate{
		TypeMeta:   metav1.TypeMeta{APIVersion: "cert-manager.io/v1", Kind: "Certificate"},
		ObjectMeta: metav1.ObjectMeta{Name: "root-server", Namespace: "kcp"},
		Spec: cmv1.CertificateSpec{
			SecretName: "root-server",
			IssuerRef:  cmmeta.IssuerReference{Name: "root-server-ca", Kind: "Issuer", Group: "cert-manager.io"},
		},
	}, resource.ReadyFalse)
	s.Add("ca", &cmv1.Certificate{
		TypeMeta:   metav1.TypeMeta{APIVersion: "cert-manager.io/v1", Kind: "Certificate"},
		ObjectMeta: metav1.ObjectMeta{Name: "root-ca", Namespace: "kcp"},
		Spec:       cmv1.CertificateSpec{SecretName: "root-ca", IsCA: true},
	}, resource.ReadyTrue)
	s.Keep("deployment", observed(map[string]any{
		"apiVersion": "apps/v1", "kind": "Deployment",
		"metadata": map[string]any{
			"name": "root-kcp", "namespace": "kcp", "resourceVersion": "5", "uid": "u-1", "generation": float64(3),
			"creationTimestamp": "2025-01-01T00:00:00Z",
			"managedFields":     []any{map[string]any{"manager": "crossplane"}},
			"ownerReferences":   []any{map[string]any{"name": "xr"}},
			"finalizers":        []any{"x"},
			"labels":            map[string]any{"app": "kcp"},
			"annotations":       map[string]any{"crossplane.io/composition-resource-name": "deployment", "note": "keep"},
		},
		"spec":   map[string]any{"replicas": float64(2)},
		"status": map[string]any{"replicas": float64(2)},
	}), resource.ReadyTrue)

	got, err := s.Composed()
	if err != nil {
		t.Fatalf("Composed(): %v", err)
	}
	if diff := cmp.Diff([]resource.Name{"ca", "certificate", "configmap", "deployment"}, sortedKeys(got)); diff != "" {
		t.Errorf("Every object of the set is desired.\nComposed(): -want, +got:\n%s", diff)
	}

	wantCM := map[string]any{
		"apiVersion": "v1", "kind": "ConfigMap",
		"metadata": map[string]any{"name": "cm", "namespace": "kcp"},
		"data":     map[string]any{"k": "v"},
	}
	if diff := cmp.Diff(wantCM, got["configmap"].Resource.Object); diff != "" {
		t.Errorf("An added typed object is converted to unstructured.\nComposed(): -want, +got:\n%s", diff)
	}
	wantCert := map[string]any{
		"apiVersion": "cert-manager.io/v1", "kind": "Certificate",
		"metadata": map[string]any{"name": "root-server", "namespace": "kcp"},
		"spec": map[string]any{
			"secretName": "root-server",
			"issuerRef":  map[string]any{"name": "root-server-ca", "kind": "Issuer", "group": "cert-manager.io"},
		},
	}
	if diff := cmp.Diff(wantCert, got["certificate"].Resource.Object); diff != "" {
		t.Errorf("An added Certificate has no status and no isCA: false, values the function has no opinion on.\nComposed(): -want, +got:\n%s", diff)
	}
	if ca := got["ca"].Resource.Object["spec"].(map[string]any)["isCA"]; ca != true {
		t.Errorf("A CA Certificate keeps isCA: true, got %v", ca)
	}
	wantReady := map[resource.Name]resource.Ready{"configmap": resource.ReadyTrue, "certificate": resource.ReadyFalse, "deployment": resource.ReadyTrue}
	for k, want := range wantReady {
		if got[k].Ready != want {
			t.Errorf("Readiness is carried to the desired resource: Composed()[%q].Ready = %q, want %q", k, got[k].Ready, want)
		}
	}

	wantKept := map[string]any{
		"apiVersion": "apps/v1", "kind": "Deployment",
		"metadata": map[string]any{
			"name": "root-kcp", "namespace": "kcp",
			"labels":      map[string]any{"app": "kcp"},
			"annotations": map[string]any{"note": "keep"},
		},
		"spec": map[string]any{"replicas": float64(2)},
	}
	if diff := cmp.Diff(wantKept, got["deployment"].Resource.Object); diff != "" {
		t.Errorf("Keep carries the observed object forward without status, resourceVersion, uid, generation, creationTimestamp, managedFields, ownerReferences, finalizers and the composition-resource-name annotation.\nComposed(): -want, +got:\n%s", diff)
	}
}

func sortedKeys(m map[resource.Name]*resource.DesiredComposed) []resource.Name {
	out := make([]resource.Name, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	slices.Sort(out)
	return out
}

func TestKeepOnlyCompositionAnnotation(t *testing.T) {
	var s Set
	s.Keep("svc", observed(map[string]any{
		"apiVersion": "v1", "kind": "Service",
		"metadata": map[string]any{
			"name": "root-kcp", "namespace": "kcp",
			"annotations": map[string]any{"crossplane.io/composition-resource-name": "svc"},
		},
		"spec": map[string]any{"clusterIP": "10.0.0.1"},
	}), resource.ReadyTrue)
	got, err := s.Composed()
	if err != nil {
		t.Fatalf("Composed(): %v", err)
	}
	want := map[string]any{
		"apiVersion": "v1", "kind": "Service",
		"metadata": map[string]any{"name": "root-kcp", "namespace": "kcp"},
		"spec":     map[string]any{"clusterIP": "10.0.0.1"},
	}
	if diff := cmp.Diff(want, got["svc"].Resource.Object); diff != "" {
		t.Errorf("With only the composition-resource-name annotation, a kept object has no annotations at all.\nComposed(): -want, +got:\n%s", diff)
	}
}

func TestKeepDoesNotAliasObserved(t *testing.T) {
	obs := observed(map[string]any{
		"apiVersion": "v1", "kind": "ConfigMap",
		"metadata": map[string]any{"name": "cm", "annotations": map[string]any{"crossplane.io/composition-resource-name": "cm"}},
		"data":     map[string]any{"k": "v"},
	})
	var s Set
	s.Keep("cm", obs, resource.ReadyTrue)
	got, err := s.Composed()
	if err != nil {
		t.Fatalf("Composed(): %v", err)
	}
	got["cm"].Resource.Object["data"].(map[string]any)["k"] = "changed"
	want := map[string]any{
		"apiVersion": "v1", "kind": "ConfigMap",
		"metadata": map[string]any{"name": "cm", "annotations": map[string]any{"crossplane.io/composition-resource-name": "cm"}},
		"data":     map[string]any{"k": "v"},
	}
	if diff := cmp.Diff(want, obs.Object); diff != "" {
		t.Errorf("The desired copy of a kept object is independent of the observed one.\nComposed(): -want, +got:\n%s", diff)
	}
}

func TestFingerprint(t *testing.T) {
	cmA := Object{Resource: configMap("cm", map[string]string{"a": "1", "b": "2"})}
	ref := Fingerprint(cmA)
	if len(ref) != 16 {
		t.Fatalf("A fingerprint is 16 hex characters, got %q", ref)
	}
	cases := map[string]struct {
		reason string
		obj    Object
		same   bool
	}{
		"SameData": {
			reason: "The same data gives the same fingerprint, whatever the name or labels.",
			obj: Object{Resource: &corev1.ConfigMap{
				ObjectMeta: metav1.ObjectMeta{Name: "other", Labels: map[string]string{"x": "y"}},
				Data:       map[string]string{"b": "2", "a": "1"},
			}},
			same: true,
		},
		"ValueChanged": {
			reason: "A changed value changes the fingerprint.",
			obj:    Object{Resource: configMap("cm", map[string]string{"a": "1", "b": "3"})},
		},
		"KeyAdded": {
			reason: "An added key changes the fingerprint.",
			obj:    Object{Resource: configMap("cm", map[string]string{"a": "1", "b": "2", "c": ""})},
		},
		"KeyValueBoundary": {
			reason: "Moving characters between a key and its value changes the fingerprint.",
			obj:    Object{Resource: configMap("cm", map[string]string{"a1": "", "b": "2"})},
		},
		"SecretSameData": {
			reason: "A Secret with the same data as a ConfigMap hashes alike: only data matters.",
			obj:    Object{Resource: secret("s", map[string][]byte{"a": []byte("1"), "b": []byte("2")})},
			same:   true,
		},
		"KeptConfigMap": {
			reason: "A kept ConfigMap with the same data has the same fingerprint as the rebuilt one, so keeping it does not roll pods.",
			obj: Object{Kept: observed(map[string]any{
				"apiVersion": "v1", "kind": "ConfigMap", "metadata": map[string]any{"name": "cm"},
				"data": map[string]any{"a": "1", "b": "2"},
			})},
			same: true,
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			got := Fingerprint(tc.obj)
			if (got == ref) != tc.same {
				t.Errorf("%s\nFingerprint(...) = %q vs %q, want same=%v", tc.reason, got, ref, tc.same)
			}
		})
	}
}

func TestFingerprintOtherKinds(t *testing.T) {
	for name, r := range map[string]runtime.Object{
		"Deployment":  &appsv1.Deployment{},
		"Certificate": &cmv1.Certificate{},
	} {
		if got := Fingerprint(Object{Resource: r}); got != "" {
			t.Errorf("A %s has no data to fingerprint: Fingerprint(...) = %q, want \"\"", name, got)
		}
	}
}

func TestFingerprintKeptSecret(t *testing.T) {
	data := map[string][]byte{"tls.crt": []byte("-----BEGIN CERTIFICATE-----\n")}
	built := Fingerprint(Object{Resource: secret("root-merged-client-ca", data)})
	kept := Fingerprint(Object{Kept: observed(map[string]any{
		"apiVersion": "v1", "kind": "Secret", "metadata": map[string]any{"name": "root-merged-client-ca"},
		"type": "Opaque",
		"data": map[string]any{"tls.crt": base64.StdEncoding.EncodeToString(data["tls.crt"])},
	})})
	if kept != built {
		t.Errorf("A kept Secret and the same Secret rebuilt must have the same fingerprint.\nFingerprint(...): kept %q, built %q", kept, built)
	}
}

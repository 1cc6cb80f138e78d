package observed

import (
	"testing"

	fnv1 "github.com/crossplane/function-sdk-go/proto/v1"
	"github.com/google/go-cmp/cmp"
	"google.golang.org/protobuf/types/known/structpb"

	"github.com/configuration-kcp/configuration-kcp/functions/kcp/internal/core/resource"
)

func state(objs map[resource.Name]map[string]any) *State {
	oc := map[resource.Name]*resource.Unstructured{}
	for k, o := range objs {
		u := resource.NewUnstructured()
		u.Object = o
		oc[k] = u
	}
	return New(oc)
}

func conditions(kv ...string) []any {
	var out []any
	for i := 0; i < len(kv); i += 2 {
		out = append(out, map[string]any{"type": kv[i], "status": kv[i+1]})
	}
	return out
}

// deployment builds an observed Deployment. Numbers are float64, as they arrive from the
// RunFunction request's protobuf Struct. A negative replicas omits spec.replicas.
func deployment(generation, observedGeneration, replicas, statusReplicas, updated, available float64, conds []any) map[string]any {
	spec := map[string]any{}
	if replicas >= 0 {
		spec["replicas"] = replicas
	}
	return map[string]any{
		"apiVersion": "apps/v1", "kind": "Deployment",
		"metadata": map[string]any{"name": "root-kcp", "generation": generation},
		"spec":     spec,
		"status": map[string]any{
			"observedGeneration": observedGeneration,
			"replicas":           statusReplicas,
			"updatedReplicas":    updated,
			"availableReplicas":  available,
			"conditions":         conds,
		},
	}
}

func TestDeploymentAvailable(t *testing.T) {
	available := conditions("Progressing", "True", "Available", "True")
	cases := map[string]struct {
		reason string
		obj    map[string]any
		want   bool
	}{
		"RolledOut": {
			reason: "Current generation observed, every replica updated and available, Available=True.",
			obj:    deployment(3, 3, 2, 2, 2, 2, available),
			want:   true,
		},
		"GenerationNotObserved": {
			reason: "The controller has not seen the latest spec yet.",
			obj:    deployment(4, 3, 2, 2, 2, 2, available),
			want:   false,
		},
		"ObservedAhead": {
			reason: "An observedGeneration beyond generation is not a reason to wait.",
			obj:    deployment(3, 4, 2, 2, 2, 2, available),
			want:   true,
		},
		"NotAllUpdated": {
			reason: "Pods of the previous template are still running.",
			obj:    deployment(3, 3, 2, 2, 1, 2, available),
			want:   false,
		},
		"NotAllAvailable": {
			reason: "A replica is not available yet.",
			obj:    deployment(3, 3, 2, 2, 2, 1, available),
			want:   false,
		},
		"OldPodsRemaining": {
			reason: "During a surge more pods exist than wanted.",
			obj:    deployment(3, 3, 2, 3, 2, 2, available),
			want:   false,
		},
		"AvailableFalse": {
			reason: "The Available condition is False.",
			obj:    deployment(3, 3, 2, 2, 2, 2, conditions("Available", "False")),
			want:   false,
		},
		"NoConditions": {
			reason: "Without an Available condition the Deployment is not available.",
			obj:    deployment(3, 3, 2, 2, 2, 2, nil),
			want:   false,
		},
		"DefaultReplicas": {
			reason: "Without spec.replicas, one replica is wanted (the API default).",
			obj:    deployment(1, 1, -1, 1, 1, 1, available),
			want:   true,
		},
		"DefaultReplicasNoneAvailable": {
			reason: "Without spec.replicas one available replica is needed.",
			obj:    deployment(1, 1, -1, 1, 1, 0, available),
			want:   false,
		},
		"ScaledToZero": {
			reason: "A Deployment scaled to zero with no pods left is available.",
			obj:    deployment(2, 2, 0, 0, 0, 0, available),
			want:   true,
		},
		"NoStatus": {
			reason: "A Deployment just created has no status.",
			obj: map[string]any{
				"apiVersion": "apps/v1", "kind": "Deployment",
				"metadata": map[string]any{"name": "root-kcp", "generation": float64(1)},
				"spec":     map[string]any{"replicas": float64(2)},
			},
			want: false,
		},
		"PlacedRolledOut": {
			reason: "A Deployment placed in another cluster is read from what its provider-kubernetes Object observed there.",
			obj:    placed(deployment(3, 3, 2, 2, 2, 2, available), conditions("Synced", "True")),
			want:   true,
		},
		"PlacedNotRolledOut": {
			reason: "The Object's own status does not make the Deployment available: what it observed there does.",
			obj:    placed(deployment(3, 3, 2, 2, 1, 2, available), conditions("Synced", "True", "Ready", "True")),
			want:   false,
		},
		"PlacedNotObservedYet": {
			reason: "An Object that has not observed its Deployment yet is not available.",
			obj:    placed(nil, nil),
			want:   false,
		},
		"IntegerNumbers": {
			reason: "Numbers typed as int64 (from Go code rather than JSON) are read too.",
			obj: map[string]any{
				"metadata": map[string]any{"generation": int64(2)},
				"spec":     map[string]any{"replicas": int64(2)},
				"status": map[string]any{
					"observedGeneration": int64(2), "replicas": int64(2), "updatedReplicas": int64(2), "availableReplicas": int64(2),
					"conditions": available,
				},
			},
			want: true,
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			s := state(map[resource.Name]map[string]any{"deployment": tc.obj})
			if got := s.DeploymentAvailable("deployment"); got != tc.want {
				t.Errorf("%s\nDeploymentAvailable(...) = %v, want %v", tc.reason, got, tc.want)
			}
		})
	}
	if New(nil).DeploymentAvailable("missing") {
		t.Errorf("A Deployment that does not exist is not available.")
	}
}

func TestDeploymentReplicas(t *testing.T) {
	cases := map[string]struct {
		reason string
		obj    map[string]any
		want   int32
		ok     bool
	}{
		"Set":     {reason: "spec.replicas as observed.", obj: deployment(1, 1, 5, 0, 0, 0, nil), want: 5, ok: true},
		"Zero":    {reason: "Zero is a value, not absence.", obj: deployment(1, 1, 0, 0, 0, 0, nil), want: 0, ok: true},
		"Missing": {reason: "No spec.replicas, nothing known.", obj: deployment(1, 1, -1, 0, 0, 0, nil), ok: false},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			s := state(map[resource.Name]map[string]any{"d": tc.obj})
			got, ok := s.DeploymentReplicas("d")
			if got != tc.want || ok != tc.ok {
				t.Errorf("%s\nDeploymentReplicas(...) = %d, %v, want %d, %v", tc.reason, got, ok, tc.want, tc.ok)
			}
		})
	}
	if _, ok := New(nil).DeploymentReplicas("missing"); ok {
		t.Errorf("A Deployment that does not exist has no replicas.")
	}
}

func certificate(revision any, conds []any) map[string]any {
	status := map[string]any{"conditions": conds}
	if revision != nil {
		status["revision"] = revision
	}
	return map[string]any{
		"apiVersion": "cert-manager.io/v1", "kind": "Certificate",
		"metadata": map[string]any{"name": "root-server"},
		"status":   status,
	}
}

func TestCertificate(t *testing.T) {
	cases := map[string]struct {
		reason   string
		obj      map[string]any
		issued   bool
		revision int64
	}{
		"Issued": {
			reason: "Ready=True means issued; the revision is status.revision.",
			obj:    certificate(float64(3), conditions("Issuing", "False", "Ready", "True")),
			issued: true, revision: 3,
		},
		"FirstIssuanceFinishing": {
			reason: "Ready=True while still Issuing with no revision: cert-manager wrote the Secret but not yet the revision, so a workload must wait for it.",
			obj:    certificate(nil, conditions("Issuing", "True", "Ready", "True")),
			issued: false, revision: 0,
		},
		"Renewing": {
			reason: "Ready=True and Issuing during a renewal: the current revision is issued and serves until the next one.",
			obj:    certificate(float64(1), conditions("Issuing", "True", "Ready", "True")),
			issued: true, revision: 1,
		},
		"AdoptedSecret": {
			reason: "A Certificate over a valid existing Secret is Ready without ever issuing: no revision, and issued.",
			obj:    certificate(nil, conditions("Ready", "True")),
			issued: true, revision: 0,
		},
		"NotReady": {
			reason: "Ready=False is not issued, whatever the revision.",
			obj:    certificate(float64(1), conditions("Ready", "False")),
			issued: false, revision: 1,
		},
		"ReadyUnknown": {
			reason: "Ready=Unknown is not issued.",
			obj:    certificate(nil, conditions("Ready", "Unknown")),
			issued: false, revision: 0,
		},
		"NoStatus": {
			reason: "A new Certificate has no conditions and no revision.",
			obj:    map[string]any{"apiVersion": "cert-manager.io/v1", "kind": "Certificate"},
			issued: false, revision: 0,
		},
		"MalformedConditions": {
			reason: "Conditions that are not objects are ignored.",
			obj:    certificate(int64(2), []any{"Ready", map[string]any{"type": "Ready", "status": "True"}}),
			issued: true, revision: 2,
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			s := state(map[resource.Name]map[string]any{"cert": tc.obj})
			if got := s.CertificateIssued("cert"); got != tc.issued {
				t.Errorf("%s\nCertificateIssued(...) = %v, want %v", tc.reason, got, tc.issued)
			}
			if got := s.CertificateRevision("cert"); got != tc.revision {
				t.Errorf("%s\nCertificateRevision(...) = %d, want %d", tc.reason, got, tc.revision)
			}
		})
	}
	s := New(nil)
	if s.CertificateIssued("missing") || s.CertificateRevision("missing") != 0 {
		t.Errorf("A Certificate that does not exist is not issued and has revision 0.")
	}
}

func TestExistsAndGet(t *testing.T) {
	oc := map[resource.Name]*resource.Unstructured{
		"present": resource.NewUnstructured(),
		"nil":     nil,
	}
	s := New(oc)
	cases := map[string]struct {
		reason string
		name   resource.Name
		want   bool
	}{
		"Present":    {reason: "An observed resource exists.", name: "present", want: true},
		"NilObject":  {reason: "An entry without a resource does not exist.", name: "nil", want: false},
		"NotPresent": {reason: "An unknown key does not exist.", name: "other", want: false},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			if got := s.Exists(tc.name); got != tc.want {
				t.Errorf("%s\nExists(%q) = %v, want %v", tc.reason, tc.name, got, tc.want)
			}
			if _, got := s.Get(tc.name); got != tc.want {
				t.Errorf("%s\nGet(%q) ok = %v, want %v", tc.reason, tc.name, got, tc.want)
			}
		})
	}
}

func TestWithObject(t *testing.T) {
	cases := map[string]struct {
		reason string
		obj    map[string]any
		kind   string
		name   string
		want   Lookup
	}{
		"Secret": {
			reason: "A Secret's data is base64 decoded; undecodable and non-string values are skipped.",
			obj: map[string]any{
				"apiVersion": "v1", "kind": "Secret",
				"metadata": map[string]any{"name": "etcd-client", "resourceVersion": "42"},
				"data": map[string]any{
					"tls.crt": "UEVNCg==",
					"empty":   "",
					"bad":     "!!not base64!!",
					"number":  float64(1),
				},
			},
			kind: "Secret", name: "etcd-client",
			want: Lookup{Found: true, ResourceVersion: "42", Data: map[string][]byte{"tls.crt": []byte("PEM\n"), "empty": {}}},
		},
		"SecretWithoutData": {
			reason: "A Secret without data is found, with empty data.",
			obj: map[string]any{
				"apiVersion": "v1", "kind": "Secret",
				"metadata": map[string]any{"name": "empty", "resourceVersion": "1"},
			},
			kind: "Secret", name: "empty",
			want: Lookup{Found: true, ResourceVersion: "1", Data: map[string][]byte{}},
		},
		"ConfigMap": {
			reason: "A ConfigMap's data is taken as it is.",
			obj: map[string]any{
				"apiVersion": "v1", "kind": "ConfigMap",
				"metadata": map[string]any{"name": "audit", "resourceVersion": "7"},
				"data":     map[string]any{"policy.yaml": "rules: []\n"},
			},
			kind: "ConfigMap", name: "audit",
			want: Lookup{Found: true, ResourceVersion: "7", Data: map[string][]byte{"policy.yaml": []byte("rules: []\n")}},
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			s := New(nil).WithObject(tc.obj)
			if diff := cmp.Diff(tc.want, s.Object(tc.kind, tc.name)); diff != "" {
				t.Errorf("%s\nWithObject(...).Object(...): -want, +got:\n%s", tc.reason, diff)
			}
		})
	}
}

func TestObjectKindsAreSeparate(t *testing.T) {
	s := New(nil).
		WithObject(map[string]any{"kind": "Secret", "metadata": map[string]any{"name": "x", "resourceVersion": "1"}, "data": map[string]any{"k": "YQ=="}}).
		WithObject(map[string]any{"kind": "ConfigMap", "metadata": map[string]any{"name": "x", "resourceVersion": "2"}, "data": map[string]any{"k": "b"}})
	if diff := cmp.Diff(Lookup{Found: true, ResourceVersion: "1", Data: map[string][]byte{"k": []byte("a")}}, s.Secret("x")); diff != "" {
		t.Errorf("A Secret and a ConfigMap of the same name are distinct.\nSecret(...): -want, +got:\n%s", diff)
	}
	if diff := cmp.Diff(Lookup{Found: true, ResourceVersion: "2", Data: map[string][]byte{"k": []byte("b")}}, s.Object("ConfigMap", "x")); diff != "" {
		t.Errorf("A Secret and a ConfigMap of the same name are distinct.\nObject(...): -want, +got:\n%s", diff)
	}
	if diff := cmp.Diff(Lookup{}, s.Secret("y")); diff != "" {
		t.Errorf("An object not read is not found.\nSecret(...): -want, +got:\n%s", diff)
	}
}

func TestObjectsOfOtherNamespacesAreApart(t *testing.T) {
	kc := func(ns, user string) map[string]any {
		return map[string]any{"kind": "Kubeconfig", "metadata": map[string]any{"name": "dev", "namespace": ns}, "spec": map[string]any{"username": user}}
	}
	s := New(nil).InNamespace("kcp-platform").
		WithObject(kc("kcp-platform", "admin")).
		WithObject(kc("team-a", "team-a:alice")).
		WithObject(map[string]any{"kind": "Secret", "metadata": map[string]any{"name": "dev", "namespace": "team-a"}, "data": map[string]any{"k": "YQ=="}})
	cases := map[string]struct {
		reason string
		got    any
		want   any
	}{
		"OwnByName": {
			reason: "An object of the XR's namespace is found by its name, never shadowed by one of another namespace.",
			got:    s.Object("Kubeconfig", "dev").Object["spec"], want: map[string]any{"username": "admin"},
		},
		"OwnByNamespace": {
			reason: "ObjectIn with the XR's own namespace is Object.",
			got:    s.ObjectIn("kcp-platform", "Kubeconfig", "dev").Object["spec"], want: map[string]any{"username": "admin"},
		},
		"Other": {
			reason: "An object of another namespace is found only by ObjectIn with that namespace.",
			got:    s.ObjectIn("team-a", "Kubeconfig", "dev").Object["spec"], want: map[string]any{"username": "team-a:alice"},
		},
		"OtherSecret": {
			reason: "A Secret of another namespace is not a Secret of the XR's.",
			got:    s.Secret("dev").Found, want: false,
		},
		"OtherNames": {
			reason: "NamesIn lists the objects of that namespace only.",
			got:    s.NamesIn("team-a", "Kubeconfig"), want: []string{"dev"},
		},
		"NoneElsewhere": {
			reason: "A namespace nothing was read in lists nothing.",
			got:    s.NamesIn("team-b", "Kubeconfig"), want: []string(nil),
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			if diff := cmp.Diff(tc.want, tc.got); diff != "" {
				t.Errorf("%s\n-want, +got:\n%s", tc.reason, diff)
			}
		})
	}
}

func TestSecretData(t *testing.T) {
	s := state(map[resource.Name]map[string]any{
		"secret": {"apiVersion": "v1", "kind": "Secret", "data": map[string]any{"kubeconfig": "a3ViZWNvbmZpZw=="}},
	})
	got, ok := s.SecretData("secret")
	if diff := cmp.Diff(map[string][]byte{"kubeconfig": []byte("kubeconfig")}, got); diff != "" || !ok {
		t.Errorf("A composed Secret's data is decoded (ok=%v).\nSecretData(...): -want, +got:\n%s", ok, diff)
	}
	if _, ok := s.SecretData("missing"); ok {
		t.Errorf("A composed Secret that does not exist has no data.")
	}
}

func TestFromRequest(t *testing.T) {
	cert, err := structpb.NewStruct(map[string]any{
		"apiVersion": "cert-manager.io/v1", "kind": "Certificate",
		"metadata": map[string]any{"name": "root-server"},
		"status":   map[string]any{"revision": 2, "conditions": conditions("Ready", "True")},
	})
	if err != nil {
		t.Fatal(err)
	}
	secret, err := structpb.NewStruct(map[string]any{
		"apiVersion": "v1", "kind": "Secret",
		"metadata": map[string]any{"name": "root-ca"},
		"data":     map[string]any{"tls.crt": "Y2E=", "odd": 1, "bad": "%%"},
	})
	if err != nil {
		t.Fatal(err)
	}
	s := FromRequest(map[string]*fnv1.Resource{
		"root-server": {Resource: cert},
		"root-ca":     {Resource: secret},
		"nothing":     {},
	})
	if got, want := s.ComposedNames(), []resource.Name{"root-ca", "root-server"}; !cmp.Equal(got, want) {
		t.Errorf("ComposedNames(): %v, want %v (a resource without a body does not exist)", got, want)
	}
	if !s.CertificateIssued("root-server") || s.CertificateRevision("root-server") != 2 {
		t.Errorf("root-server: issued %v at revision %d, want issued at revision 2", s.CertificateIssued("root-server"), s.CertificateRevision("root-server"))
	}
	data, ok := s.SecretData("root-ca")
	if diff := cmp.Diff(map[string][]byte{"tls.crt": []byte("ca")}, data); !ok || diff != "" {
		t.Errorf("SecretData(root-ca): only decodable string values: -want, +got:\n%s", diff)
	}
	u, ok := s.Get("root-server")
	if !ok || u.GetName() != "root-server" || u.Object["status"].(map[string]any)["revision"] != float64(2) {
		t.Errorf("Get(root-server) converts the whole object: %v", u)
	}
	if again, _ := s.Get("root-server"); again != u {
		t.Errorf("Get converts an object once and returns the same object after")
	}
}

func TestConditionAndStrings(t *testing.T) {
	obj := resource.NewUnstructured()
	obj.Object = map[string]any{
		"spec": map[string]any{"managementPolicies": []any{"Observe", "Delete"}},
		"status": map[string]any{"conditions": []any{
			map[string]any{"type": "Synced", "status": "False", "reason": "ReconcileError", "message": "connection refused"},
			map[string]any{"type": "Ready", "status": "True", "reason": "Available"},
		}},
	}
	s := New(map[resource.Name]*resource.Unstructured{"object": obj})
	cases := map[string]struct {
		reason                  string
		name                    resource.Name
		condition               string
		ok, found               bool
		wantReason, wantMessage string
	}{
		"False":      {reason: "A False condition reports its reason and message.", name: "object", condition: "Synced", found: true, wantReason: "ReconcileError", wantMessage: "connection refused"},
		"True":       {reason: "A True condition reports True.", name: "object", condition: "Ready", ok: true, found: true, wantReason: "Available"},
		"Absent":     {reason: "A condition the resource lacks is not found.", name: "object", condition: "Healthy"},
		"NoResource": {reason: "A resource that does not exist has no condition.", name: "other", condition: "Ready"},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			ok, reason, msg, found := s.Condition(tc.name, tc.condition)
			if ok != tc.ok || found != tc.found || reason != tc.wantReason || msg != tc.wantMessage {
				t.Errorf("%s\nCondition(%q, %q) = %v, %q, %q, %v; want %v, %q, %q, %v", tc.reason, tc.name, tc.condition, ok, reason, msg, found, tc.ok, tc.wantReason, tc.wantMessage, tc.found)
			}
		})
	}
	if diff := cmp.Diff([]string{"Observe", "Delete"}, s.Strings("object", "spec", "managementPolicies")); diff != "" {
		t.Errorf("Strings(spec.managementPolicies): -want +got:\n%s", diff)
	}
	if got := s.Strings("object", "spec", "absent"); got != nil {
		t.Errorf("Strings of an absent field = %v, want nil", got)
	}
}

func TestCertificateThroughSet(t *testing.T) {
	set := map[string]any{
		"apiVersion": "kcp.crossplane.io/v1alpha1", "kind": "CertificateSet",
		"metadata": map[string]any{"name": "root-serving-certs"},
		"status": map[string]any{"certificates": []any{
			map[string]any{"key": "certificate-server", "revision": float64(3), "notAfter": "2027-01-01T00:00:00Z"},
		}},
	}
	s := state(map[resource.Name]map[string]any{"certificateset-serving-certs": set})
	cases := map[string]struct {
		reason   string
		key      resource.Name
		issued   bool
		revision int64
		notAfter string
	}{
		"Reported": {
			reason: "A certificate a composed CertificateSet reports is issued, at the revision and expiry it reports.",
			key:    "certificate-server", issued: true, revision: 3, notAfter: "2027-01-01T00:00:00Z",
		},
		"NotReported": {
			reason: "A certificate no set reports (its set not done yet) is not issued.",
			key:    "certificate-virtual-workspaces",
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			if got := s.CertificateIssued(tc.key); got != tc.issued {
				t.Errorf("%s\nCertificateIssued(...) = %v, want %v", tc.reason, got, tc.issued)
			}
			if got := s.CertificateRevision(tc.key); got != tc.revision {
				t.Errorf("%s\nCertificateRevision(...) = %d, want %d", tc.reason, got, tc.revision)
			}
			if got := s.CertificateNotAfter(tc.key); got != tc.notAfter {
				t.Errorf("%s\nCertificateNotAfter(...) = %q, want %q", tc.reason, got, tc.notAfter)
			}
		})
	}
	composedToo := state(map[resource.Name]map[string]any{
		"certificateset-serving-certs": set,
		"certificate-server":           certificate(nil, conditions("Ready", "False")),
	})
	if composedToo.CertificateIssued("certificate-server") {
		t.Errorf("A Certificate the XR composes itself answers for itself, whatever a set reports under its key.")
	}
}

// placed wraps a Deployment as a provider-kubernetes Object that observed it as obj (nil:
// not observed yet), with the Object's own conditions.
func placed(obj map[string]any, conds []any) map[string]any {
	status := map[string]any{}
	if obj != nil {
		status["atProvider"] = map[string]any{"manifest": obj}
	}
	if conds != nil {
		status["conditions"] = conds
	}
	return map[string]any{
		"apiVersion": "kubernetes.m.crossplane.io/v1alpha1", "kind": "Object",
		"metadata": map[string]any{"name": "root-kcp.deployment"},
		"spec": map[string]any{
			"providerConfigRef": map[string]any{"kind": "ProviderConfig", "name": "cluster-b"},
			"forProvider":       map[string]any{"manifest": map[string]any{"kind": "Deployment", "metadata": map[string]any{"name": "root-kcp", "namespace": "kcp-b"}}},
		},
		"status": status,
	}
}

func TestPlacedAndUnreachable(t *testing.T) {
	rolledOut := deployment(1, 1, 1, 1, 1, 1, conditions("Available", "True"))
	cases := map[string]struct {
		reason          string
		obj             map[string]any
		wantPlaced      string
		wantUnreachable string
	}{
		"Local": {
			reason: "A Deployment of this cluster is neither placed nor unreachable.",
			obj:    rolledOut,
		},
		"Synced": {
			reason:     "A placed Deployment whose Object is Synced is reachable.",
			obj:        placed(rolledOut, conditions("Synced", "True")),
			wantPlaced: "kcp-b ProviderConfig cluster-b",
		},
		"NotSynced": {
			reason:          "provider-kubernetes cannot reach the cluster: the Object says why; what it last observed stays.",
			obj:             placed(rolledOut, []any{map[string]any{"type": "Synced", "status": "False", "reason": "ReconcileError", "message": "connection refused"}}),
			wantPlaced:      "kcp-b ProviderConfig cluster-b",
			wantUnreachable: "ReconcileError: connection refused",
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			s := state(map[resource.Name]map[string]any{"deployment": tc.obj})
			got := ""
			if ns, kind, config, ok := s.Placed("deployment"); ok {
				got = ns + " " + kind + " " + config
			}
			if got != tc.wantPlaced {
				t.Errorf("%s\nPlaced(...) = %q, want %q", tc.reason, got, tc.wantPlaced)
			}
			why, _ := s.Unreachable("deployment")
			if why != tc.wantUnreachable {
				t.Errorf("%s\nUnreachable(...) = %q, want %q", tc.reason, why, tc.wantUnreachable)
			}
			if !s.DeploymentAvailable("deployment") {
				t.Errorf("%s\nthe Deployment last observed rolled out reads as available", tc.reason)
			}
		})
	}
}

func TestMap(t *testing.T) {
	s := state(map[resource.Name]map[string]any{"rootshard": {"apiVersion": "kcp.crossplane.io/v1alpha1", "kind": "RootShard",
		"spec": map[string]any{"image": map[string]any{"tag": "v0.30.0", "imagePullSecrets": []any{map[string]any{"name": "pull"}}}, "empty": map[string]any{}, "null": nil, "replicas": 2.0}}})
	cases := map[string]struct {
		reason string
		name   resource.Name
		path   []string
		want   map[string]any
		ok     bool
	}{
		"Object":      {reason: "An object is converted as Get would have it.", name: "rootshard", path: []string{"spec", "image"}, ok: true, want: map[string]any{"tag": "v0.30.0", "imagePullSecrets": []any{map[string]any{"name": "pull"}}}},
		"EmptyObject": {reason: "An empty object is there.", name: "rootshard", path: []string{"spec", "empty"}, ok: true, want: map[string]any{}},
		"Null":        {reason: "null is no object.", name: "rootshard", path: []string{"spec", "null"}},
		"NotObject":   {reason: "A number is no object.", name: "rootshard", path: []string{"spec", "replicas"}},
		"Absent":      {reason: "A missing field is no object.", name: "rootshard", path: []string{"spec", "other", "image"}},
		"NotObserved": {reason: "A resource not observed has nothing.", name: "shard", path: []string{"spec"}},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			got, ok := s.Map(tc.name, tc.path...)
			if diff := cmp.Diff(tc.want, got); diff != "" || ok != tc.ok {
				t.Errorf("%s\nMap(%q, %v): ok %v, want %v; -want, +got:\n%s", tc.reason, tc.name, tc.path, ok, tc.ok, diff)
			}
		})
	}
}

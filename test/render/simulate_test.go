package render

import (
	"encoding/base64"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// fakePKI has readable stand-ins for PEM data, so wants show which fixture went where.
var fakePKI = PKI{
	RootCA:         KeyPair{Cert: []byte("root-crt"), Key: []byte("root-key"), NotBefore: day(2024), NotAfter: day(2034)},
	IntermediateCA: KeyPair{Cert: []byte("intermediate-crt"), Key: []byte("intermediate-key"), NotBefore: day(2024), NotAfter: day(2034)},
	Leaf:           KeyPair{Cert: []byte("leaf-crt"), Key: []byte("leaf-key"), NotBefore: day(2024), NotAfter: day(2025)},
}

func day(year int) time.Time { return time.Date(year, 1, 1, 0, 0, 0, 0, time.UTC) }

func b64(s string) string { return base64.StdEncoding.EncodeToString([]byte(s)) }

const issuerCA = `
apiVersion: cert-manager.io/v1
kind: Issuer
metadata:
  name: root-ca
  namespace: kcp
  annotations: {crossplane.io/composition-resource-name: issuer-ca}
spec:
  ca: {secretName: root-ca}
status:
  conditions: null
`

const issuerCAReady = `
apiVersion: cert-manager.io/v1
kind: Issuer
metadata:
  name: root-ca
  namespace: kcp
  annotations: {crossplane.io/composition-resource-name: issuer-ca}
spec:
  ca: {secretName: root-ca}
status:
  conditions:
  - {type: Ready, status: "True", reason: KeyPairVerified, message: Signing CA verified, lastTransitionTime: "2024-01-01T00:00:00Z"}
`

// certificate is a composed Certificate named name, issued by a kind/name issuer.
func certificate(name string, isCA bool, issuerKind, issuerName string) string {
	ca := "false"
	if isCA {
		ca = "true"
	}
	return `
apiVersion: cert-manager.io/v1
kind: Certificate
metadata:
  name: ` + name + `
  namespace: kcp
  annotations: {crossplane.io/composition-resource-name: certificate-` + name + `}
spec:
  isCA: ` + ca + `
  issuerRef: {group: cert-manager.io, kind: ` + issuerKind + `, name: ` + issuerName + `}
  secretName: ` + name + `
  secretTemplate:
    labels: {operator.kcp.io/rootshard: root}
status:
  conditions: null
`
}

// issued is the simulated status of an issued Certificate.
func issued(cert, notAfter string) string {
	return strings.Replace(cert, "status:\n  conditions: null\n", `status:
  conditions:
  - {type: Ready, status: "True", reason: Ready, message: Certificate is up to date and has not expired, lastTransitionTime: "2024-01-01T00:00:00Z"}
  revision: 1
  notBefore: "2024-01-01T00:00:00Z"
  notAfter: "`+notAfter+`"
`, 1)
}

// tlsSecret is what cert-manager writes for Certificate name.
func tlsSecret(name, issuerKind, issuerName, crt, key, ca string) string {
	return `
apiVersion: v1
kind: Secret
type: kubernetes.io/tls
metadata:
  name: ` + name + `
  namespace: kcp
  resourceVersion: "1"
  labels: {operator.kcp.io/rootshard: root}
  annotations:
    cert-manager.io/certificate-name: ` + name + `
    cert-manager.io/issuer-group: cert-manager.io
    cert-manager.io/issuer-kind: ` + issuerKind + `
    cert-manager.io/issuer-name: ` + issuerName + `
data:
  tls.crt: ` + b64(crt) + `
  tls.key: ` + b64(key) + `
  ca.crt: ` + b64(ca) + `
`
}

func TestObserve(t *testing.T) {
	type args struct {
		environment []string
		composed    []string
	}
	type want struct {
		observed []string
		required []string
		err      string
	}
	cases := map[string]struct {
		reason string
		args   args
		want   want
	}{
		"RootCA": {
			reason: "A CA from an issuer the XR does not compose is a root: it gets the root fixture, and its ca.crt is itself.",
			args:   args{composed: []string{certificate("root-ca", true, "ClusterIssuer", "selfsigned")}},
			want: want{
				observed: []string{issued(certificate("root-ca", true, "ClusterIssuer", "selfsigned"), "2034-01-01T00:00:00Z")},
				required: []string{tlsSecret("root-ca", "ClusterIssuer", "selfsigned", "root-crt", "root-key", "root-crt")},
			},
		},
		"IntermediateCA": {
			reason: "A CA issued by a composed Issuer gets the intermediate fixture, signed by the root.",
			args:   args{composed: []string{certificate("root-server-ca", true, "Issuer", "root-ca"), issuerCA}},
			want: want{
				observed: []string{issued(certificate("root-server-ca", true, "Issuer", "root-ca"), "2034-01-01T00:00:00Z"), issuerCAReady},
				required: []string{tlsSecret("root-server-ca", "Issuer", "root-ca", "intermediate-crt", "intermediate-key", "root-crt")},
			},
		},
		"Leaf": {
			reason: "A certificate that is not a CA gets the leaf fixture, signed by the intermediate.",
			args:   args{composed: []string{certificate("root-server", false, "Issuer", "root-server-ca")}},
			want: want{
				observed: []string{issued(certificate("root-server", false, "Issuer", "root-server-ca"), "2025-01-01T00:00:00Z")},
				required: []string{tlsSecret("root-server", "Issuer", "root-server-ca", "leaf-crt", "leaf-key", "intermediate-crt")},
			},
		},
		"DeploymentAvailable": {
			reason: "A Deployment is rolled out at generation 1 with every replica available.",
			args: args{composed: []string{`
apiVersion: apps/v1
kind: Deployment
metadata: {name: root-kcp, namespace: kcp, annotations: {crossplane.io/composition-resource-name: deployment-kcp}}
spec: {replicas: 3}
status: {replicas: 0, conditions: null}
`}},
			want: want{observed: []string{`
apiVersion: apps/v1
kind: Deployment
metadata: {name: root-kcp, namespace: kcp, generation: 1, annotations: {crossplane.io/composition-resource-name: deployment-kcp}}
spec: {replicas: 3}
status:
  observedGeneration: 1
  replicas: 3
  readyReplicas: 3
  availableReplicas: 3
  updatedReplicas: 3
  conditions:
  - {type: Available, status: "True", reason: MinimumReplicasAvailable, message: Deployment has minimum availability., lastTransitionTime: "2024-01-01T00:00:00Z"}
  - {type: Progressing, status: "True", reason: NewReplicaSetAvailable, message: ReplicaSet "root-kcp" has successfully progressed., lastTransitionTime: "2024-01-01T00:00:00Z"}
`}},
		},
		"DeploymentDefaultReplicas": {
			reason: "A Deployment without spec.replicas runs the API server's default of one.",
			args: args{composed: []string{`
apiVersion: apps/v1
kind: Deployment
metadata: {name: p, namespace: kcp, annotations: {crossplane.io/composition-resource-name: deployment-p}}
spec: {}
`}},
			want: want{observed: []string{`
apiVersion: apps/v1
kind: Deployment
metadata: {name: p, namespace: kcp, generation: 1, annotations: {crossplane.io/composition-resource-name: deployment-p}}
spec: {}
status:
  observedGeneration: 1
  replicas: 1
  readyReplicas: 1
  availableReplicas: 1
  updatedReplicas: 1
  conditions:
  - {type: Available, status: "True", reason: MinimumReplicasAvailable, message: Deployment has minimum availability., lastTransitionTime: "2024-01-01T00:00:00Z"}
  - {type: Progressing, status: "True", reason: NewReplicaSetAvailable, message: ReplicaSet "p" has successfully progressed., lastTransitionTime: "2024-01-01T00:00:00Z"}
`}},
		},
		"OtherKindsAsRendered": {
			reason: "Services are observed as rendered, with the resourceVersion every stored object has.",
			args: args{composed: []string{`
apiVersion: v1
kind: Service
metadata: {name: root-kcp, namespace: kcp, annotations: {crossplane.io/composition-resource-name: service-kcp}}
spec: {ports: [{port: 6443}]}
`}},
			want: want{observed: []string{`
apiVersion: v1
kind: Service
metadata: {name: root-kcp, namespace: kcp, annotations: {crossplane.io/composition-resource-name: service-kcp}}
spec: {ports: [{port: 6443}]}
`}},
		},
		"Environment": {
			reason: "The user's Secrets and ConfigMaps are required resources as the API server stores them (resourceVersion set, stringData folded into data); other documents are not.",
			args: args{environment: []string{
				`{apiVersion: v1, kind: Namespace, metadata: {name: kcp}}`,
				`{apiVersion: v1, kind: Secret, metadata: {name: s, namespace: kcp}, data: {a: YQ==}, stringData: {b: b}}`,
				`{apiVersion: v1, kind: ConfigMap, metadata: {name: c, namespace: kcp, resourceVersion: "7"}}`,
				`{apiVersion: cert-manager.io/v1, kind: ClusterIssuer, metadata: {name: selfsigned}, spec: {selfSigned: {}}}`,
			}},
			want: want{required: []string{
				`{apiVersion: v1, kind: Secret, metadata: {name: s, namespace: kcp, resourceVersion: "1"}, data: {a: YQ==, b: Yg==}}`,
				`{apiVersion: v1, kind: ConfigMap, metadata: {name: c, namespace: kcp, resourceVersion: "7"}}`,
			}},
		},
		"MissingResourceName": {
			reason: "Render matches observed resources by annotation, so one without it is an error.",
			args:   args{composed: []string{`{apiVersion: v1, kind: ConfigMap, metadata: {name: c, namespace: kcp}}`}},
			want:   want{err: "RootShard kcp/root: composed ConfigMap c has no crossplane.io/composition-resource-name annotation"},
		},
		"CertificateWithoutSecretName": {
			reason: "cert-manager cannot write a Secret without a name.",
			args: args{composed: []string{`
apiVersion: cert-manager.io/v1
kind: Certificate
metadata: {name: x, namespace: kcp, annotations: {crossplane.io/composition-resource-name: certificate-x}}
spec: {issuerRef: {name: i}}
`}},
			want: want{err: "RootShard kcp/root: Certificate x has no spec.secretName"},
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			sim := Simulator{PKI: fakePKI, Environment: objects(tc.args.environment...)}
			composed := objects(tc.args.composed...)
			before := contents(objects(tc.args.composed...))
			worlds, err := sim.Observe([]*Output{{XR: objects(rootShard)[0], Composed: composed}})
			if diff := cmp.Diff(tc.want.err, errorString(t, err)); diff != "" {
				t.Fatalf("%s\nObserve(...): -want error, +got error:\n%s", tc.reason, diff)
			}
			var got World
			if err == nil {
				got = worlds[0]
			}
			if diff := cmp.Diff(contents(stored(objects(tc.want.observed...))), contents(got.Observed)); diff != "" {
				t.Errorf("%s\nObserve(...).Observed: -want, +got:\n%s", tc.reason, diff)
			}
			if diff := cmp.Diff(contents(objects(tc.want.required...)), contents(got.Required)); diff != "" {
				t.Errorf("%s\nObserve(...).Required: -want, +got:\n%s", tc.reason, diff)
			}
			if diff := cmp.Diff(before, contents(composed)); diff != "" {
				t.Errorf("%s\nObserve(...) changed its input: -before, +after:\n%s", tc.reason, diff)
			}
		})
	}
}

// rootShard and shard are XRs of one example, as written.
const (
	rootShard = `{apiVersion: kcp.crossplane.io/v1alpha1, kind: RootShard, metadata: {name: root, namespace: kcp}, spec: {external: {hostname: kcp.example.com}}}`
	shard     = `{apiVersion: kcp.crossplane.io/v1alpha1, kind: Shard, metadata: {name: shard1, namespace: kcp}, spec: {rootShard: {ref: {name: root}}}}`
)

// withStatus returns an XR document as render returns it, with a status.
func withStatus(xr, phase string) string {
	return strings.TrimSuffix(xr, "}") + `, status: {phase: ` + phase + `}}`
}

// composed returns a composed object document of kind (v1) named name.
func composed(kind, name, body string) string {
	return `{apiVersion: v1, kind: ` + kind + `, metadata: {name: ` + name + `, namespace: kcp, annotations: {crossplane.io/composition-resource-name: ` +
		strings.ToLower(kind) + `-` + name + `}}, ` + body + `}`
}

// stored sets the resourceVersion the simulated API server gives every object but the XRs
// (which render returns without one), where it is missing.
func stored(objs []*Object) []*Object {
	for _, o := range objs {
		if o.GetResourceVersion() == "" && o.GroupVersionKind().Group != XRGroup {
			o.SetResourceVersion("1")
		}
	}
	return objs
}

func TestFresh(t *testing.T) {
	type args struct {
		environment []string
		xrs         []string
	}
	type want struct {
		required [][]string
		err      string
	}
	secret := `{apiVersion: v1, kind: Secret, metadata: {name: s, namespace: kcp}}`
	secretStored := `{apiVersion: v1, kind: Secret, metadata: {name: s, namespace: kcp, resourceVersion: "1"}}`
	cases := map[string]struct {
		reason string
		args   args
		want   want
	}{
		"OneXR": {
			reason: "Before anything is composed an XR requires only the user's Secrets and ConfigMaps.",
			args:   args{environment: []string{`{apiVersion: v1, kind: Namespace, metadata: {name: kcp}}`, secret}, xrs: []string{rootShard}},
			want:   want{required: [][]string{{secretStored}}},
		},
		"OtherXRsAsWritten": {
			reason: "Each XR requires the user's objects and every other XR of the example as written, never itself.",
			args:   args{environment: []string{secret}, xrs: []string{rootShard, shard}},
			want:   want{required: [][]string{{secretStored, shard}, {secretStored, rootShard}}},
		},
		"DuplicateEnvironment": {
			reason: "Of two documents of one user object the later wins, as with kubectl apply.",
			args: args{environment: []string{
				`{apiVersion: v1, kind: ConfigMap, metadata: {name: c, namespace: kcp}, data: {v: "1"}}`,
				`{apiVersion: v1, kind: ConfigMap, metadata: {name: c, namespace: kcp}, data: {v: "2"}}`,
			}, xrs: []string{rootShard}},
			want: want{required: [][]string{{`{apiVersion: v1, kind: ConfigMap, metadata: {name: c, namespace: kcp, resourceVersion: "1"}, data: {v: "2"}}`}}},
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			sim := Simulator{PKI: fakePKI, Environment: objects(tc.args.environment...)}
			got, err := sim.Fresh(objects(tc.args.xrs...))
			if diff := cmp.Diff(tc.want.err, errorString(t, err)); diff != "" {
				t.Fatalf("%s\nFresh(...): -want error, +got error:\n%s", tc.reason, diff)
			}
			if diff := cmp.Diff(len(tc.want.required), len(got)); diff != "" {
				t.Fatalf("%s\nFresh(...) worlds: -want, +got:\n%s", tc.reason, diff)
			}
			for i, w := range got {
				if diff := cmp.Diff(contents(withRenderUIDs(objects(tc.want.required[i]...))), contents(w.Required)); diff != "" {
					t.Errorf("%s\nFresh(...)[%d].Required: -want, +got:\n%s", tc.reason, i, diff)
				}
				if w.Observed != nil {
					t.Errorf("%s\nFresh(...)[%d].Observed: want nothing, got %d objects", tc.reason, i, len(w.Observed))
				}
			}
		})
	}
}

// TestObserveShared checks the world the XRs of one example share.
func TestObserveShared(t *testing.T) {
	type want struct {
		observed [][]string
		required [][]string
		err      string
	}
	rootCA := certificate("root-server-ca", true, "ClusterIssuer", "selfsigned")
	rootCASecret := tlsSecret("root-server-ca", "ClusterIssuer", "selfsigned", "root-crt", "root-key", "root-crt")
	kubeconfig := composed("Secret", "root-kubeconfig", `data: {kubeconfig: YQ==}`)
	// The API server folds stringData into data, so observers and requirers read data.
	folded := composed("Secret", "root-kubeconfig", `data: {kubeconfig: YQ==, extra: Yg==}`)
	shardConfig := composed("ConfigMap", "shard1-config", `data: {a: b}`)
	service := composed("Service", "root-kcp", `spec: {ports: [{port: 6443}]}`)
	clientCert := certificate("kubeconfig-cert-admin", false, "Issuer", "root-client-ca")
	adopting := func(xr string, labels string) string {
		return `{apiVersion: v1, kind: Secret, metadata: {name: kubeconfig-cert-admin, namespace: kcp,
  annotations: {crossplane.io/composition-resource-name: secret-kubeconfig-cert-admin},
  labels: {` + labels + `},
  ownerReferences: [{apiVersion: kcp.crossplane.io/v1alpha1, kind: ` + xr + `, name: x, uid: ` + xr + `-uid, controller: true, blockOwnerDeletion: true}]}}`
	}
	// adopted is cert-manager's Secret with the adopting XR's metadata merged in, as
	// server-side apply leaves it.
	adopted := func(xr string, labels string) string {
		return `
apiVersion: v1
kind: Secret
type: kubernetes.io/tls
metadata:
  name: kubeconfig-cert-admin
  namespace: kcp
  resourceVersion: "1"
  labels: {operator.kcp.io/rootshard: root, ` + labels + `}
  annotations:
    cert-manager.io/certificate-name: kubeconfig-cert-admin
    cert-manager.io/issuer-group: cert-manager.io
    cert-manager.io/issuer-kind: Issuer
    cert-manager.io/issuer-name: root-client-ca
    crossplane.io/composition-resource-name: secret-kubeconfig-cert-admin
  ownerReferences: [{apiVersion: kcp.crossplane.io/v1alpha1, kind: ` + xr + `, name: x, uid: ` + xr + `-uid, controller: true, blockOwnerDeletion: true}]
data:
  tls.crt: ` + b64("leaf-crt") + `
  tls.key: ` + b64("leaf-key") + `
  ca.crt: ` + b64("intermediate-crt") + `
`
	}
	cases := map[string]struct {
		reason string
		outs   []*Output
		want   want
	}{
		"Adoption": {
			reason: "A composed metadata-only Secret named like the Secret cert-manager wrote is that Secret: the XR observes it with cert-manager's type and data " +
				"and its own labels, annotations and owner references, and every XR is offered that one object.",
			outs: []*Output{
				{XR: objects(rootShard)[0], Composed: objects(clientCert, adopting("RootShard", "crossplane.io/composite: root"))},
				{XR: objects(shard)[0]},
			},
			want: want{
				observed: [][]string{{issued(clientCert, "2025-01-01T00:00:00Z"), adopted("RootShard", "crossplane.io/composite: root")}, nil},
				required: [][]string{
					{adopted("RootShard", "crossplane.io/composite: root"), shard},
					{rootShard, adopted("RootShard", "crossplane.io/composite: root")},
				},
			},
		},
		"AdoptionSameLabel": {
			reason: "A label both cert-manager and the XR set to the same value is one label.",
			outs: []*Output{
				{XR: objects(rootShard)[0], Composed: objects(clientCert, adopting("RootShard", "operator.kcp.io/rootshard: root"))},
			},
			want: want{
				observed: [][]string{{issued(clientCert, "2025-01-01T00:00:00Z"), adopted("RootShard", "operator.kcp.io/rootshard: root")}},
				required: [][]string{{adopted("RootShard", "operator.kcp.io/rootshard: root")}},
			},
		},
		"AdoptionAcrossXRs": {
			reason: "An XR may adopt the Secret of a Certificate another XR composes; the issuing XR is offered the adopted Secret.",
			outs: []*Output{
				{XR: objects(rootShard)[0], Composed: objects(clientCert)},
				{XR: objects(shard)[0], Composed: objects(adopting("Shard", "crossplane.io/composite: shard1"))},
			},
			want: want{
				observed: [][]string{{issued(clientCert, "2025-01-01T00:00:00Z")}, {adopted("Shard", "crossplane.io/composite: shard1")}},
				required: [][]string{
					{adopted("Shard", "crossplane.io/composite: shard1"), shard},
					{rootShard, adopted("Shard", "crossplane.io/composite: shard1")},
				},
			},
		},
		"AdoptionLabelConflict": {
			reason: "An adopting XR setting a label cert-manager sets, to another value, would fight cert-manager over it.",
			outs: []*Output{
				{XR: objects(rootShard)[0], Composed: objects(clientCert, adopting("RootShard", "operator.kcp.io/rootshard: other"))},
			},
			want: want{err: `RootShard kcp/root: composed Secret kcp/kubeconfig-cert-admin adopting the one cert-manager wrote: label operator.kcp.io/rootshard is "root" on one side and "other" on the other`},
		},
		"TwoAdopters": {
			reason: "Two XRs adopting one Secret would fight over its controller.",
			outs: []*Output{
				{XR: objects(rootShard)[0], Composed: objects(clientCert, adopting("RootShard", "crossplane.io/composite: root"))},
				{XR: objects(shard)[0], Composed: objects(adopting("Shard", "crossplane.io/composite: shard1"))},
			},
			want: want{err: "Secret kcp/kubeconfig-cert-admin is adopted by two XRs: RootShard kcp/root; Shard kcp/shard1"},
		},
		"SharedWorld": {
			reason: "Each XR observes only what it composed, and requires the other XRs as rendered (with status), the Secrets cert-manager wrote " +
				"for any XR's Certificates and the Secrets and ConfigMaps any XR composed (its own as it observes them); other kinds are not offered.",
			outs: []*Output{
				{XR: objects(withStatus(rootShard, "Running"))[0], Composed: objects(rootCA, kubeconfig, service)},
				{XR: objects(withStatus(shard, "Provisioning"))[0], Composed: objects(shardConfig)},
			},
			want: want{
				observed: [][]string{
					{issued(rootCA, "2034-01-01T00:00:00Z"), kubeconfig, service},
					{shardConfig},
				},
				required: [][]string{
					{rootCASecret, kubeconfig, withStatus(shard, "Provisioning"), shardConfig},
					{withStatus(rootShard, "Running"), rootCASecret, kubeconfig, shardConfig},
				},
			},
		},
		"StringDataFolded": {
			reason: "A composed Secret's stringData is folded into data, in what the XR observes and what others require alike.",
			outs: []*Output{
				{XR: objects(rootShard)[0], Composed: objects(composed("Secret", "root-kubeconfig", `data: {kubeconfig: YQ==}, stringData: {extra: b}`))},
				{XR: objects(shard)[0]},
			},
			want: want{
				observed: [][]string{{folded}, nil},
				required: [][]string{{folded, shard}, {rootShard, folded}},
			},
		},
		"SameObjectTwice": {
			reason: "Two XRs composing an identical object is one object.",
			outs: []*Output{
				{XR: objects(rootShard)[0], Composed: objects(shardConfig)},
				{XR: objects(shard)[0], Composed: objects(shardConfig)},
			},
			want: want{
				observed: [][]string{{shardConfig}, {shardConfig}},
				required: [][]string{{shardConfig, shard}, {rootShard, shardConfig}},
			},
		},
		"Conflict": {
			reason: "Two producers of one object that disagree is a broken example, named as such.",
			outs: []*Output{
				{XR: objects(rootShard)[0], Composed: objects(rootCA)},
				{XR: objects(shard)[0], Composed: objects(composed("Secret", "root-server-ca", `data: {tls.crt: YQ==}`))},
			},
			want: want{err: "Secret kcp/root-server-ca has two different sources: cert-manager (Certificate root-server-ca of RootShard kcp/root); " +
				"composed by Shard kcp/shard1"},
		},
		"EnvironmentConflict": {
			reason: "An XR composing a Secret the user also provides, differently, is a conflict too.",
			outs: []*Output{
				{XR: objects(rootShard)[0], Composed: objects(composed("Secret", "s", `data: {a: YQ==}`))},
			},
			want: want{err: "Secret kcp/s has two different sources: the example; composed by RootShard kcp/root"},
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			sim := Simulator{PKI: fakePKI, Environment: objects(`{apiVersion: v1, kind: Secret, metadata: {name: s, namespace: kcp}, data: {a: Yg==}}`)}
			if name != "EnvironmentConflict" {
				sim.Environment = nil
			}
			got, err := sim.Observe(tc.outs)
			if diff := cmp.Diff(tc.want.err, errorString(t, err)); diff != "" {
				t.Fatalf("%s\nObserve(...): -want error, +got error:\n%s", tc.reason, diff)
			}
			if err != nil {
				return
			}
			for i, w := range got {
				if diff := cmp.Diff(contents(stored(objects(tc.want.observed[i]...))), contents(w.Observed)); diff != "" {
					t.Errorf("%s\nObserve(...)[%d].Observed: -want, +got:\n%s", tc.reason, i, diff)
				}
				if diff := cmp.Diff(contents(stored(withRenderUIDs(objects(tc.want.required[i]...)))), contents(w.Required)); diff != "" {
					t.Errorf("%s\nObserve(...)[%d].Required: -want, +got:\n%s", tc.reason, i, diff)
				}
			}
		})
	}
}

// TestAdopt checks the merge of a composed metadata-only object into an existing one.
func TestAdopt(t *testing.T) {
	existing := `{apiVersion: v1, kind: Secret, type: kubernetes.io/tls, metadata: {name: s, namespace: kcp, resourceVersion: "1", labels: {a: "1"},
  ownerReferences: [{apiVersion: v1, kind: ConfigMap, name: c, uid: c-uid}]}, data: {tls.key: a2V5}}`
	cases := map[string]struct {
		reason   string
		existing string
		composed string
		want     string
		err      string
	}{
		"Merged": {
			reason:   "Labels, annotations and owner references are added; type, data and resourceVersion stay the existing object's.",
			existing: existing,
			composed: `{apiVersion: v1, kind: Secret, metadata: {name: s, namespace: kcp, resourceVersion: "1", labels: {b: "2"}, annotations: {note: m},
  ownerReferences: [{apiVersion: v1, kind: ConfigMap, name: c, uid: c-uid}, {apiVersion: x/v1, kind: X, name: x, uid: x-uid, controller: true}]}}`,
			want: `{apiVersion: v1, kind: Secret, type: kubernetes.io/tls, metadata: {name: s, namespace: kcp, resourceVersion: "1", labels: {a: "1", b: "2"}, annotations: {note: m},
  ownerReferences: [{apiVersion: v1, kind: ConfigMap, name: c, uid: c-uid}, {apiVersion: x/v1, kind: X, name: x, uid: x-uid, controller: true}]}, data: {tls.key: a2V5}}`,
		},
		"NothingToAdd": {
			reason:   "Adopting with no metadata of its own adds no empty fields.",
			existing: `{apiVersion: v1, kind: Secret, metadata: {name: s, namespace: kcp}, data: {k: dg==}}`,
			composed: `{apiVersion: v1, kind: Secret, metadata: {name: s, namespace: kcp}}`,
			want:     `{apiVersion: v1, kind: Secret, metadata: {name: s, namespace: kcp}, data: {k: dg==}}`,
		},
		"TwoControllers": {
			reason:   "The API server rejects an object with two controllers.",
			existing: `{apiVersion: v1, kind: Secret, metadata: {name: s, namespace: kcp, ownerReferences: [{apiVersion: v1, kind: A, name: a, uid: a, controller: true}]}}`,
			composed: `{apiVersion: v1, kind: Secret, metadata: {name: s, namespace: kcp, ownerReferences: [{apiVersion: v1, kind: B, name: b, uid: b, controller: true}]}}`,
			err:      "composed Secret kcp/s adopting the one cert-manager wrote: it would have two controllers",
		},
		"AnnotationConflict": {
			reason:   "An annotation set to two values is a fight between writers.",
			existing: `{apiVersion: v1, kind: Secret, metadata: {name: s, namespace: kcp, annotations: {note: "1"}}}`,
			composed: `{apiVersion: v1, kind: Secret, metadata: {name: s, namespace: kcp, annotations: {note: "2"}}}`,
			err:      `composed Secret kcp/s adopting the one cert-manager wrote: annotation note is "1" on one side and "2" on the other`,
		},
		"UnknownMetadata": {
			reason:   "Metadata the harness does not know how server-side apply merges is not guessed at.",
			existing: existing,
			composed: `{apiVersion: v1, kind: Secret, metadata: {name: s, namespace: kcp, finalizers: [f]}}`,
			err:      "composed Secret kcp/s adopting the one cert-manager wrote sets metadata.finalizers, which the harness cannot merge",
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			e, c := objects(tc.existing)[0], objects(tc.composed)[0]
			before := contents(objects(tc.existing, tc.composed))
			got, err := adopt(e, c)
			if diff := cmp.Diff(tc.err, errorString(t, err)); diff != "" {
				t.Fatalf("%s\nadopt(...): -want error, +got error:\n%s", tc.reason, diff)
			}
			if diff := cmp.Diff(before, contents([]*Object{e, c})); diff != "" {
				t.Errorf("%s\nadopt(...) changed its inputs: -before, +after:\n%s", tc.reason, diff)
			}
			if err != nil {
				return
			}
			if diff := cmp.Diff(contents(objects(tc.want)), contents([]*Object{got})); diff != "" {
				t.Errorf("%s\nadopt(...): -want, +got:\n%s", tc.reason, diff)
			}
		})
	}
}

func TestMetadataOnly(t *testing.T) {
	for doc, want := range map[string]bool{
		`{apiVersion: v1, kind: Secret, metadata: {name: s}}`:                  true,
		`{apiVersion: v1, kind: Secret, metadata: {name: s}, type: Opaque}`:    false,
		`{apiVersion: v1, kind: Secret, metadata: {name: s}, data: {}}`:        false,
		`{apiVersion: v1, kind: Secret, metadata: {name: s}, immutable: true}`: false,
	} {
		if got := metadataOnly(objects(doc)[0]); got != want {
			t.Errorf("metadataOnly(%s) = %v, want %v", doc, got, want)
		}
	}
}

// withRenderUIDs gives the XRs among objs the uid render gives them, as the simulator offers
// them to other XRs.
func withRenderUIDs(objs []*Object) []*Object {
	out := make([]*Object, len(objs))
	for i, o := range objs {
		out[i] = o
		if o.GroupVersionKind().Group == "kcp.crossplane.io" {
			out[i] = withRenderUID(o)
		}
	}
	return out
}

package kubeconfig

import (
	"slices"
	"strings"
	"testing"
	"time"

	cmv1 "github.com/cert-manager/cert-manager/pkg/apis/certmanager/v1"
	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/configuration-kcp/configuration-kcp/apis/v1alpha1"
	"github.com/configuration-kcp/configuration-kcp/functions/kcp/internal/core/desired"
	"github.com/configuration-kcp/configuration-kcp/functions/kcp/internal/kinds/frontproxy"
	"github.com/configuration-kcp/configuration-kcp/functions/kcp/internal/kinds/rootshard"
	"github.com/configuration-kcp/configuration-kcp/functions/kcp/internal/kinds/shard"
	"github.com/configuration-kcp/configuration-kcp/functions/kcp/internal/names"
	"github.com/configuration-kcp/configuration-kcp/functions/kcp/internal/testworld"
)

func TestValidate(t *testing.T) {
	cases := map[string]struct {
		reason string
		kc     *v1alpha1.Kubeconfig
		want   []string
	}{
		"Valid": {
			reason: "The fixture is valid.",
			kc:     kubeconfigXR(),
		},
		"Server": {
			reason: "spec.server may replace the target's address with a host and port.",
			kc:     kubeconfigXR(func(kc *v1alpha1.Kubeconfig) { kc.Spec.Server = "https://kcp.example.com:443" }),
		},
		"ServerNotHTTPS": {
			reason: "kcp serves only TLS.",
			kc:     kubeconfigXR(func(kc *v1alpha1.Kubeconfig) { kc.Spec.Server = "http://kcp.example.com" }),
			want:   []string{`spec.server: Invalid value: "http://kcp.example.com": must be an https URL with a host, such as https://kcp.example.com:443`},
		},
		"ServerWithPath": {
			reason: "The kubeconfig appends /clusters/<workspace>; a path or credentials in the URL would break it or leak, and the password is not repeated in the message.",
			kc:     kubeconfigXR(func(kc *v1alpha1.Kubeconfig) { kc.Spec.Server = "https://user:pw@kcp.example.com/clusters/root" }),
			want:   []string{`spec.server: Invalid value: "https://user:xxxxx@kcp.example.com/clusters/root": must be only https://<host>[:<port>]: the kubeconfig adds /clusters/<workspace> itself, and credentials belong in the client certificate`},
		},
		"ServerPort": {
			reason: "A port outside 1-65535 is refused.",
			kc:     kubeconfigXR(func(kc *v1alpha1.Kubeconfig) { kc.Spec.Server = "https://kcp.example.com:70000" }),
			want:   []string{`spec.server: Invalid value: "https://kcp.example.com:70000": the port must be between 1 and 65535`},
		},
		"NoTarget": {
			reason: "A target is required.",
			kc:     kubeconfigXR(func(kc *v1alpha1.Kubeconfig) { kc.Spec.Target = v1alpha1.KubeconfigTarget{} }),
			want:   []string{"spec.target: Required value: set exactly one of rootShardRef (a RootShard), shardRef (a Shard) or frontProxyRef (a FrontProxy), which the kubeconfig reaches, or referenceSecretRef (the reference Secret of one)"},
		},
		"TwoTargets": {
			reason: "Exactly one target: kcp-operator silently picks the first.",
			kc: kubeconfigXR(func(kc *v1alpha1.Kubeconfig) {
				kc.Spec.Target.FrontProxyRef = &v1alpha1.SharedReference{Name: "edge"}
			}),
			want: []string{"spec.target: Forbidden: set exactly one of rootShardRef, shardRef, frontProxyRef or referenceSecretRef"},
		},
		"TargetWithoutName": {
			reason: "The target needs a name.",
			kc:     kubeconfigXR(toShard("")),
			want:   []string{"spec.target.shardRef.name: Required value: name the Shard the kubeconfig reaches"},
		},
		"RequiredFields": {
			reason: "Every missing required field is named at once.",
			kc: kubeconfigXR(func(kc *v1alpha1.Kubeconfig) {
				kc.Spec.Username = " "
				kc.Spec.Validity = metav1.Duration{}
				kc.Spec.SecretRef.Name = ""
			}),
			want: []string{
				"spec.username: Required value: set the user name, the common name of the client certificate",
				`spec.validity: Invalid value: "0s": must be a positive duration such as 8760h`,
				"spec.secretRef.name: Required value: name the Secret the kubeconfig is written to",
			},
		},
		"ShortValidity": {
			reason: "cert-manager rejects certificates shorter than an hour.",
			kc:     kubeconfigXR(func(kc *v1alpha1.Kubeconfig) { kc.Spec.Validity = metav1.Duration{Duration: 30 * time.Minute} }),
			want:   []string{`spec.validity: Invalid value: "30m0s": must be at least 1h0m0s: cert-manager rejects shorter certificates`},
		},
		"TemplateDurationWins": {
			reason: "A template duration replaces the validity, so it is the one checked.",
			kc: kubeconfigXR(func(kc *v1alpha1.Kubeconfig) {
				kc.Spec.CertificateTemplate = &v1alpha1.CertificateTemplate{Spec: &v1alpha1.CertificateSpecTemplate{Duration: &metav1.Duration{Duration: time.Minute}}}
			}),
			want: []string{`spec.certificateTemplate.spec.duration: Invalid value: "1m0s": must be at least 1h0m0s: cert-manager rejects shorter certificates`},
		},
		"EmptyGroup": {
			reason: "An empty group would be an empty organization.",
			kc:     kubeconfigXR(func(kc *v1alpha1.Kubeconfig) { kc.Spec.Groups = []string{"ops", ""} }),
			want:   []string{"spec.groups[1]: Required value: remove the empty group or name one"},
		},
		"ControlCharacters": {
			reason: "A line break or escape in the user or a group forges what kcp's audit log and RBAC show: refused, naming the field.",
			kc: kubeconfigXR(func(kc *v1alpha1.Kubeconfig) {
				kc.Spec.Username = "alice\nsystem:masters"
				kc.Spec.Groups = []string{"ops", "\x1b[2Jadmins"}
			}),
			want: []string{
				`spec.username: Invalid value: "alice\nsystem:masters": must hold only printable characters, and U+000A at byte 5 is not (a control, formatting or non-ASCII space character); remove it`,
				`spec.groups[1]: Invalid value: "\x1b[2Jadmins": must hold only printable characters, and U+001B at byte 0 is not (a control, formatting or non-ASCII space character); remove it`,
			},
		},
		"BidiOverrideGroup": {
			reason: "A right-to-left override makes one group display as another.",
			kc:     kubeconfigXR(func(kc *v1alpha1.Kubeconfig) { kc.Spec.Groups = []string{"ops\u202e"} }),
			want:   []string{`spec.groups[0]: Invalid value: "ops\u202e": must hold only printable characters, and U+202E at byte 3 is not (a control, formatting or non-ASCII space character); remove it`},
		},
		"BadWorkspace": {
			reason: "The workspace path follows the XRD's pattern.",
			kc:     kubeconfigXR(func(kc *v1alpha1.Kubeconfig) { kc.Spec.TargetWorkspace = "root/team" }),
			want:   []string{`spec.targetWorkspace: Invalid value: "root/team": must be a kcp workspace path: workspace names (lowercase letters, digits and '-') joined by ':', such as root or root:team-a`},
		},
		"BadClusterRole": {
			reason: "A cluster role must be a name kcp can build a binding name from.",
			kc:     kubeconfigXR(withRoles("", "", "view", "", "a/b")),
			want: []string{
				"spec.authorization.clusterRoleBindings.clusterRoles[1]: Required value: name a cluster role, such as cluster-admin, or remove the empty entry",
				`spec.authorization.clusterRoleBindings.clusterRoles[2]: Invalid value: "a/b": is not a cluster role name: may not contain '/'`,
			},
		},
		"BadDeprecatedCluster": {
			reason: "The deprecated workspace field is a workspace path too.",
			kc:     kubeconfigXR(withRoles("", "Root", "view")),
			want:   []string{`spec.authorization.clusterRoleBindings.cluster: Invalid value: "Root": must be a kcp workspace path: workspace names (lowercase letters, digits and '-') joined by ':', such as root or root:team-a`},
		},
		"BadSecretName": {
			reason: "The output Secret name must be a valid Secret name.",
			kc:     kubeconfigXR(func(kc *v1alpha1.Kubeconfig) { kc.Spec.SecretRef.Name = "Admin_Kubeconfig" }),
			want:   []string{`spec.secretRef.name: Invalid value: "Admin_Kubeconfig": a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')`},
		},
		"OwnCertificateSecret": {
			reason: "The output Secret cannot be the client certificate's own Secret.",
			kc:     kubeconfigXR(func(kc *v1alpha1.Kubeconfig) { kc.Spec.SecretRef.Name = "kubeconfig-cert-admin" }),
			want:   []string{`spec.secretRef.name: Invalid value: "kubeconfig-cert-admin": is the Secret cert-manager writes the client certificate of this Kubeconfig to; choose another name`},
		},
		"OtherCertificateSecret": {
			reason: "Nor another Kubeconfig's.",
			kc:     kubeconfigXR(func(kc *v1alpha1.Kubeconfig) { kc.Spec.SecretRef.Name = "kubeconfig-cert-bob" }),
			want:   []string{`spec.secretRef.name: Invalid value: "kubeconfig-cert-bob": names starting with kubeconfig-cert- are reserved for the client certificate Secrets of Kubeconfigs; choose another name`},
		},
		"RootShardCA": {
			reason: "Nor a Secret of the target RootShard, such as its server CA.",
			kc:     kubeconfigXR(func(kc *v1alpha1.Kubeconfig) { kc.Spec.SecretRef.Name = "root-server-ca" }),
			want:   []string{`spec.secretRef.name: Invalid value: "root-server-ca": is a Secret of RootShard root; writing the kubeconfig into it would overwrite it and delete it with this Kubeconfig. Choose another name`},
		},
		"ShardKubeconfig": {
			reason: "Nor a Secret of the target Shard.",
			kc:     kubeconfigXR(toShard("alpha"), func(kc *v1alpha1.Kubeconfig) { kc.Spec.SecretRef.Name = "alpha-client-kubeconfig" }),
			want:   []string{`spec.secretRef.name: Invalid value: "alpha-client-kubeconfig": is a Secret of Shard alpha; writing the kubeconfig into it would overwrite it and delete it with this Kubeconfig. Choose another name`},
		},
		"FrontProxyBundle": {
			reason: "Nor a Secret of the target FrontProxy.",
			kc:     kubeconfigXR(toFrontProxy("edge"), func(kc *v1alpha1.Kubeconfig) { kc.Spec.SecretRef.Name = "edge-merged-client-ca" }),
			want:   []string{`spec.secretRef.name: Invalid value: "edge-merged-client-ca": is a Secret of FrontProxy edge; writing the kubeconfig into it would overwrite it and delete it with this Kubeconfig. Choose another name`},
		},
		"RootShardReference": {
			reason: "Nor the reference Secret the target RootShard publishes.",
			kc:     kubeconfigXR(func(kc *v1alpha1.Kubeconfig) { kc.Spec.SecretRef.Name = "root-reference" }),
			want:   []string{`spec.secretRef.name: Invalid value: "root-reference": is a Secret of RootShard root; writing the kubeconfig into it would overwrite it and delete it with this Kubeconfig. Choose another name`},
		},
		"FrontProxyReference": {
			reason: "Nor the target FrontProxy's, known before the FrontProxy is read.",
			kc:     kubeconfigXR(toFrontProxy("edge"), func(kc *v1alpha1.Kubeconfig) { kc.Spec.SecretRef.Name = "edge-reference" }),
			want:   []string{`spec.secretRef.name: Invalid value: "edge-reference": is a Secret of FrontProxy edge; writing the kubeconfig into it would overwrite it and delete it with this Kubeconfig. Choose another name`},
		},
		"LongName": {
			reason: "The name is a label value on the certificate Secret.",
			kc:     kubeconfigXR(func(kc *v1alpha1.Kubeconfig) { kc.Name = strings.Repeat("a", 64) }),
			want:   []string{"metadata.name: Too long: may not be more than 63 bytes"},
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			var got []string
			for _, e := range Validate(tc.kc) {
				got = append(got, e.Error())
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("%s\nValidate(...): -want, +got:\n%s", tc.reason, diff)
			}
		})
	}
}

// TestReservedOnceResolved: the Secrets of the target's RootShard and FrontProxy are known
// only once they are read; Compose rejects them then, and composes nothing.
func TestReservedOnceResolved(t *testing.T) {
	cases := map[string]struct {
		kc    *v1alpha1.Kubeconfig
		world func(*testworld.World)
		want  string
	}{
		"RootShardOfShard": {
			kc:    kubeconfigXR(toShard("alpha"), func(kc *v1alpha1.Kubeconfig) { kc.Spec.SecretRef.Name = "root-client-ca" }),
			world: func(w *testworld.World) { w.Object(shardXR()) },
			want:  `spec.secretRef.name: Invalid value: "root-client-ca": is a Secret of RootShard root; writing the kubeconfig into it would overwrite it and delete it with this Kubeconfig. Choose another name`,
		},
		"FrontProxy": {
			kc:    kubeconfigXR(toFrontProxy("edge"), func(kc *v1alpha1.Kubeconfig) { kc.Spec.SecretRef.Name = "root-edge-server" }),
			world: func(w *testworld.World) { w.Object(frontProxy()) },
			want:  `spec.secretRef.name: Invalid value: "root-edge-server": is a Secret of FrontProxy edge; writing the kubeconfig into it would overwrite it and delete it with this Kubeconfig. Choose another name`,
		},
		"RootShardOfFrontProxy": {
			kc:    kubeconfigXR(toFrontProxy("edge"), func(kc *v1alpha1.Kubeconfig) { kc.Spec.SecretRef.Name = "root-proxy-dynamic-kubeconfig" }),
			world: func(w *testworld.World) { w.Object(frontProxy()) },
			want:  `spec.secretRef.name: Invalid value: "root-proxy-dynamic-kubeconfig": is a Secret of RootShard root; writing the kubeconfig into it would overwrite it and delete it with this Kubeconfig. Choose another name`,
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			if errs := Validate(tc.kc); len(errs) > 0 {
				t.Fatalf("statically valid: %v", errs)
			}
			w := installation(t, testworld.New(), rootShard())
			tc.world(w)
			_, errs := Compose(tc.kc, w.State())
			var got []string
			for _, e := range errs {
				got = append(got, e.Error())
			}
			if diff := cmp.Diff([]string{tc.want}, got); diff != "" {
				t.Errorf("Compose errors: -want, +got:\n%s", diff)
			}
		})
	}
}

// TestReservedListsMatchCompositions guards names.RootShard.Secrets, names.Shard.Secrets and
// frontProxySecrets against drift: every Secret a converged RootShard, Shard or FrontProxy composes, or has cert-manager
// write, with every optional Secret switched on, is listed.
func TestReservedListsMatchCompositions(t *testing.T) {
	rs := rootShard(func(rs *v1alpha1.RootShard) {
		rs.Spec.CABundleSecretRef = &corev1.LocalObjectReference{Name: "user-bundle"}
		rs.Spec.ClientCABundleRef = &corev1.LocalObjectReference{Name: "user-clients"}
		rs.Spec.Public = &v1alpha1.PublicEndpoint{Hostname: "root.example.com", ServerCertificate: &v1alpha1.PublicServerCertificate{IssuerRef: v1alpha1.ObjectReference{Name: "public", Kind: "ClusterIssuer"}}}
		rs.Spec.Monitoring = &v1alpha1.Monitoring{Enabled: true}
	})
	sh := shardXR(func(sh *v1alpha1.Shard) {
		sh.Spec.CABundleSecretRef = &corev1.LocalObjectReference{Name: "user-bundle"}
		sh.Spec.ClientCABundleRef = &corev1.LocalObjectReference{Name: "user-clients"}
		sh.Spec.Public = &v1alpha1.PublicEndpoint{Hostname: "alpha.example.com", ServerCertificate: &v1alpha1.PublicServerCertificate{IssuerRef: v1alpha1.ObjectReference{Name: "public", Kind: "ClusterIssuer"}}}
		sh.Spec.Monitoring = &v1alpha1.Monitoring{Enabled: true}
	})
	fp := frontProxy(func(fp *v1alpha1.FrontProxy) {
		fp.Spec.CABundleSecretRef = &corev1.LocalObjectReference{Name: "user-bundle"}
		fp.Spec.ClientCABundleRef = &corev1.LocalObjectReference{Name: "user-clients"}
		fp.Spec.PublicServerCertificate = &v1alpha1.PublicServerCertificate{IssuerRef: v1alpha1.ObjectReference{Name: "public", Kind: "ClusterIssuer"}}
		fp.Spec.Monitoring = &v1alpha1.Monitoring{Enabled: true}
	})
	// prometheus-operator is installed, so monitoring composes its client certificates.
	podMonitorCRD := map[string]any{"apiVersion": "apiextensions.k8s.io/v1", "kind": "CustomResourceDefinition", "metadata": map[string]any{"name": "podmonitors.monitoring.coreos.com"}}
	base := func() *testworld.World {
		w := testworld.New().Object(rs).Object(sh).Object(fp).Object(podMonitorCRD)
		for _, s := range append([]string{"user-bundle", "user-clients"}, names.RootShard("root").Secrets()...) {
			// With a key, as cert-manager writes: the RootShard embeds its kcp-operator
			// certificate's in the credentials provider-kubernetes reads.
			w.SecretData(s, map[string]string{"tls.crt": "PEM", "tls.key": "KEY"})
		}
		return w
	}
	secrets := func(d desired.Set) []string {
		var out []string
		flat := testworld.Flatten(d, testworld.New().State())
		for _, o := range flat.Objects() {
			switch r := o.Resource.(type) {
			case *cmv1.Certificate:
				out = append(out, r.Spec.SecretName)
			case *corev1.Secret:
				out = append(out, r.Name)
			}
		}
		return out
	}
	rsState, shState, fpState := base().State(), base().State(), base().State()
	var rsSecrets, shSecrets, fpSecrets []string
	for range 3 {
		f := must(frontproxy.Compose(fp, fpState))
		fpSecrets = secrets(f.Desired)
		fpState = base().Settle(f.Desired).State()
		r := must(rootshard.Compose(rs, rsState))
		rsSecrets = secrets(r.Desired)
		rsState = base().Settle(r.Desired).State()
		s := must(shard.Compose(sh, shState))
		shSecrets = secrets(s.Desired)
		shState = base().Settle(s.Desired).State()
	}
	sorted := func(s []string) []string { s = slices.Clone(s); slices.Sort(s); return s }
	if diff := cmp.Diff(sorted(names.RootShard("root").Secrets()), sorted(rsSecrets)); diff != "" {
		t.Errorf("names.RootShard.Secrets must list exactly the Secrets a RootShard composes: -list, +composed:\n%s", diff)
	}
	if diff := cmp.Diff(sorted(names.Shard("alpha").Secrets()), sorted(shSecrets)); diff != "" {
		t.Errorf("names.Shard.Secrets must list exactly the Secrets a Shard composes: -list, +composed:\n%s", diff)
	}
	if diff := cmp.Diff(sorted(frontProxySecrets("root", "edge")), sorted(fpSecrets)); diff != "" {
		t.Errorf("frontProxySecrets must list exactly the Secrets a FrontProxy composes: -list, +composed:\n%s", diff)
	}
}

func TestWarnings(t *testing.T) {
	cases := map[string]struct {
		reason string
		kc     *v1alpha1.Kubeconfig
		want   []string
	}{
		"NoAuthorization": {reason: "Nothing to warn about.", kc: kubeconfigXR()},
		"Authorization":   {reason: "Bindings are provisioned, so spec.authorization is no longer a warning.", kc: kubeconfigXR(withRoles("root:team", "", "view"))},
		"SameWorkspace":   {reason: "The deprecated field agreeing with targetWorkspace changes nothing.", kc: kubeconfigXR(withRoles("root:team", "root:team", "view"))},
		"DeprecatedIgnored": {
			reason: "The deprecated field losing to targetWorkspace is said, with where the roles are bound.",
			kc:     kubeconfigXR(withRoles("root:team", "root:other", "view")),
			want:   []string{"spec.authorization.clusterRoleBindings.cluster (root:other) is deprecated and ignored while spec.targetWorkspace (root:team) is set: the roles are bound in root:team"},
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			if diff := cmp.Diff(tc.want, Warnings(tc.kc)); diff != "" {
				t.Errorf("%s\nWarnings: -want, +got:\n%s", tc.reason, diff)
			}
		})
	}
}

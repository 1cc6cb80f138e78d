package main

import (
	"fmt"
	"strings"
	"testing"

	fnv1 "github.com/crossplane/function-sdk-go/proto/v1"
	"google.golang.org/protobuf/proto"

	"github.com/configuration-kcp/configuration-kcp/functions/kcp/internal/check"
	"github.com/configuration-kcp/configuration-kcp/test/fnrequest"
)

// The XRD's bounds on a KcpInstallation (apis/v1alpha1): the most shards and image pull
// secrets it admits.
const (
	maxShards      = 100
	maxPullSecrets = 16
)

// TestRefusedBeforeComposed drives, through RunFunction, the input a tenant could write that
// cert-manager or the API server would refuse only later, on a composed object, with a
// message naming no field of the installation. Each is refused first: a Fatal naming the
// field, and nothing desired.
func TestRefusedBeforeComposed(t *testing.T) {
	installation := func(spec string) string {
		return `{"apiVersion": "kcp.crossplane.io/v1alpha1", "kind": "KcpInstallation", "metadata": {"name": "dev", "namespace": "team-a", "uid": "dev-uid"},
			"spec": {"external": {"hostname": "kcp.team-a.example.com"}, "certificates": {"issuerRef": {"name": "team-ca", "kind": "Issuer"}}` + spec + `}}`
	}
	cases := map[string]struct {
		reason string
		xr     string
		want   string
	}{
		"UsernameOver64Bytes": {
			reason: "The admin user name is the client certificate's common name, which cert-manager limits to 64 bytes.",
			xr:     installation(`, "admin": {"username": "` + strings.Repeat("u", 65) + `"}`),
			want:   "spec.admin: Invalid value",
		},
		"NegativeEtcdSize": {
			reason: "A volume of -1Gi would be refused by the API server on the StatefulSet.",
			xr:     installation(`, "etcd": {"managed": {"storage": {"size": "-1Gi"}}}`),
			want:   `spec.etcd.managed.storage.size: Invalid value: "-1Gi": must be greater than zero`,
		},
		"NegativeCPURequest": {
			reason: "A negative CPU request would be refused by the API server on the Deployment.",
			xr:     installation(`, "rootShard": {"resources": {"requests": {"cpu": "-1"}}}`),
			want:   `spec.resources.requests[cpu]: Invalid value: "-1": must not be negative`,
		},
		"InvalidServerCertificateDNSName": {
			reason: "cert-manager cannot put a name with a space in a certificate.",
			xr:     installation(`, "frontProxies": [{"name": "public", "serverCertificate": {"issuerRef": {"name": "team-ca", "kind": "Issuer"}, "dnsNames": ["bad name"]}}]`),
			want:   `spec.frontProxies[0]: Invalid value`,
		},
		"EtcdImageWithNewline": {
			reason: "A line break in the etcd image would be refused by the API server on the StatefulSet.",
			xr:     installation(`, "etcd": {"managed": {"image": "quay.io/coreos/etcd:v3.5.28\nevil"}}`),
			want:   `spec.etcd.managed.image: Invalid value`,
		},
		"EtcdEndpointWithCredentials": {
			reason: "Credentials in an etcd URL would be copied into kcp's arguments, which view reads.",
			xr:     installation(`, "etcd": {"external": {"endpoints": ["https://root:s3cret@etcd.example.com:2379"]}}`),
			want:   `must not carry credentials`,
		},
		"CertificateLifetimeUnderAnHour": {
			reason: "cert-manager refuses a Certificate shorter than an hour; a RootShard's template says so on its own field.",
			xr: `{"apiVersion": "kcp.crossplane.io/v1alpha1", "kind": "RootShard", "metadata": {"name": "root", "namespace": "kcp"},
				"spec": {"external": {"hostname": "api.example.com", "port": 6443}, "cache": {}, "etcd": {"endpoints": ["http://etcd:2379"]},
				"certificates": {"issuerRef": {"name": "ca", "kind": "ClusterIssuer"}},
				"certificateTemplates": {"server": {"spec": {"duration": "30m"}}}}}`,
			want: `spec.certificateTemplates[server].spec.duration: Invalid value: "30m0s": must be at least 1h0m0s`,
		},
		"ServiceLabelTheAPIServerRefuses": {
			reason: "A label key with a space would be refused by the API server on the Service.",
			xr: `{"apiVersion": "kcp.crossplane.io/v1alpha1", "kind": "FrontProxy", "metadata": {"name": "fp", "namespace": "kcp"},
				"spec": {"rootShard": {"ref": {"name": "root"}}, "external": {"hostname": "api.example.com", "port": 6443},
				"serviceTemplate": {"metadata": {"labels": {"bad key": "x"}}}}}`,
			want: `spec.serviceTemplate.metadata.labels: Invalid value: "bad key"`,
		},
		"TolerationTheAPIServerRefuses": {
			reason: "A toleration with an empty key and operator Equal would be refused by the API server on every Deployment.",
			xr:     installation(`, "scheduling": {"tolerations": [{"operator": "Equal", "value": "kcp"}]}`),
			want:   `spec.scheduling.tolerations[0].operator: Invalid value: "Equal": must be Exists when key is empty`,
		},
		"ShardBaseURLWithCredentials": {
			reason: "Credentials in a shard URL would be copied into arguments and ConfigMaps.",
			xr:     installation(`, "rootShard": {"shardBaseURL": "https://u:p@root.example.com:6443"}`),
			want:   `must not carry credentials`,
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			rsp := run(t, fnrequest.New(tc.xr))
			var fatal string
			for _, r := range rsp.GetResults() {
				if r.GetSeverity() == fnv1.Severity_SEVERITY_FATAL {
					fatal = r.GetMessage()
				}
			}
			if !strings.Contains(fatal, tc.want) {
				t.Errorf("%s\nfatal result:\n got: %q\nwant: ...%q...", tc.reason, fatal, tc.want)
			}
			if strings.Contains(fatal, "s3cret") {
				t.Errorf("%s\nthe message repeats the credentials: %q", tc.reason, fatal)
			}
			if n := len(rsp.GetDesired().GetResources()); n > 0 {
				t.Errorf("%s\nrefused, yet %d resources desired", tc.reason, n)
			}
		})
	}
}

// hostileInstallation is the installation of the finding that exhausted the function: shards
// shards, each a child XR, and pullSecrets image pull secrets copied into every child.
func hostileInstallation(shards, pullSecrets int, repository string) string {
	var b strings.Builder
	b.WriteString(`{"apiVersion": "kcp.crossplane.io/v1alpha1", "kind": "KcpInstallation", "metadata": {"name": "dev", "namespace": "team-a", "uid": "dev-uid"},
		"spec": {"external": {"hostname": "kcp.team-a.example.com"}, "certificates": {"issuerRef": {"name": "team-ca", "kind": "Issuer"}},
		"image": {"repository": "` + repository + `", "imagePullSecrets": [`)
	for i := range pullSecrets {
		if i > 0 {
			b.WriteString(",")
		}
		b.WriteString(`{"name": "pull-secret-` + strings.Repeat("p", 200) + `"}`)
	}
	b.WriteString(`]}, "shards": [`)
	for i := range shards {
		if i > 0 {
			b.WriteString(",")
		}
		fmt.Fprintf(&b, `{"name": "s%d"}`, i)
	}
	b.WriteString(`]}}`)
	return b.String()
}

// TestOversizedRefused holds the function's response budget: the inputs of the finding that
// made responses of 100 MB and more are refused before anything is composed, naming the
// field, and the largest input the XRD's bounds admit is composed under the limit.
func TestOversizedRefused(t *testing.T) {
	cases := map[string]struct {
		reason string
		xr     string
		want   string // a substring of the Fatal result; "" when it must compose
	}{
		"PullSecretsTimesShards": {
			reason: "5,000 pull secrets copied into 100 shards and the other children: refused, naming the list.",
			xr:     hostileInstallation(100, 5000, "ghcr.io/kcp-dev/kcp"),
			want:   "spec.image.imagePullSecrets: Forbidden: ",
		},
		"MegabyteRepository": {
			reason: "A 1 MB repository string copied into every child: refused, naming the string.",
			xr:     hostileInstallation(1, 0, strings.Repeat("a", 1<<20)),
			want:   "spec.image.repository: Forbidden: ",
		},
		"LargestAdmitted": {
			reason: "The most shards and pull secrets the XRD admits compose, under the limit.",
			xr:     hostileInstallation(maxShards, maxPullSecrets, "ghcr.io/kcp-dev/kcp"),
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			rsp := run(t, fnrequest.New(tc.xr))
			var fatal string
			for _, r := range rsp.GetResults() {
				if r.GetSeverity() == fnv1.Severity_SEVERITY_FATAL {
					fatal = r.GetMessage()
				}
			}
			if tc.want == "" {
				if fatal != "" {
					t.Fatalf("%s\nfatal result: %s", tc.reason, fatal)
				}
				if n := proto.Size(rsp); n > check.ResponseLimit {
					t.Errorf("%s\nresponse of %d bytes, over the limit of %d", tc.reason, n, check.ResponseLimit)
				}
				return
			}
			if !strings.Contains(fatal, tc.want) {
				t.Errorf("%s\nfatal result:\n got: %.300q\nwant: ...%q...", tc.reason, fatal, tc.want)
			}
			if n := len(rsp.GetDesired().GetResources()); n > 0 {
				t.Errorf("%s\nrefused, yet %d resources desired", tc.reason, n)
			}
		})
	}
}

package main

import (
	"strings"
	"testing"

	fnv1 "github.com/crossplane/function-sdk-go/proto/v1"

	"github.com/configuration-kcp/configuration-kcp/test/fnrequest"
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

package encryption

import (
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestRewriteJob(t *testing.T) {
	j := Rewrite{
		Name: "root-encryption-rewrite-1234abcd", Namespace: "kcp", Server: "https://root-kcp.kcp.svc.cluster.local:6443",
		ClientSecret: "root-client", ServerCASecret: "root-server-ca", Resources: []string{"secrets", "configmaps"},
		KubectlImage: DefaultKubectlImage, ShellImage: DefaultShellImage,
	}.Job()
	pod := j.Spec.Template.Spec
	c := pod.Containers[0]
	if diff := cmp.Diff([]string{"/tools/busybox", "sh"}, c.Command); diff != "" {
		t.Errorf("the kubectl image has no shell: busybox, copied by the init container, runs the script (-want, +got):\n%s", diff)
	}
	if diff := cmp.Diff([]string{"-c", RewriteScript, "rewrite", "https://root-kcp.kcp.svc.cluster.local:6443", "secrets", "configmaps"}, c.Args); diff != "" {
		t.Errorf("the script takes the server, then each resource (-want, +got):\n%s", diff)
	}
	if diff := cmp.Diff([]string{"/bin/cp", "/bin/busybox", "/tools/busybox"}, pod.InitContainers[0].Command); diff != "" {
		t.Errorf("init container (-want, +got):\n%s", diff)
	}
	var secrets []string
	for _, v := range pod.Volumes {
		if v.Secret != nil {
			secrets = append(secrets, v.Secret.SecretName)
		}
	}
	if diff := cmp.Diff([]string{"root-client", "root-server-ca"}, secrets); diff != "" {
		t.Errorf("the Job reads the server's own system:masters certificate and its CA, nothing else (-want, +got):\n%s", diff)
	}
	if u := pod.SecurityContext.RunAsUser; u == nil || *u == 0 || !*pod.SecurityContext.RunAsNonRoot {
		t.Errorf("the pod must run as a non-root user busybox's image does not name: %v", pod.SecurityContext)
	}
	if pod.RestartPolicy != "Never" || *j.Spec.BackoffLimit == 0 {
		t.Errorf("a failed run is retried as a new pod: restartPolicy %s, backoffLimit %d", pod.RestartPolicy, *j.Spec.BackoffLimit)
	}
	for _, tool := range []string{"sleep", "grep", "sed", "awk", "jq", "cut", "sort"} {
		if slices.Contains(strings.Fields(RewriteScript), tool) {
			t.Errorf("the script calls %s, which busybox's shell does not find in the kubectl image: use shell builtins and kubectl", tool)
		}
	}
}

package check

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

func TestFlagName(t *testing.T) {
	cases := map[string]struct {
		reason string
		arg    string
		want   string
	}{
		"LongWithValue":   {reason: "The usual form.", arg: "--etcd-servers=https://x:2379", want: "etcd-servers"},
		"LongAlone":       {reason: "The value may follow as the next argument.", arg: "--etcd-servers", want: "etcd-servers"},
		"SingleDash":      {reason: "pflag reads -name as --name for long names too.", arg: "-etcd-servers=x", want: "etcd-servers"},
		"Underscores":     {reason: "Kubernetes' flag sets normalize _ to -, so --etcd_servers sets etcd-servers.", arg: "--etcd_servers=x", want: "etcd-servers"},
		"Verbosity":       {reason: "-v=4 sets v.", arg: "-v=4", want: "v"},
		"Value":           {reason: "A value is no flag.", arg: "https://x:2379", want: ""},
		"Terminator":      {reason: "-- ends the flags.", arg: "--", want: ""},
		"EmptyValueFlag":  {reason: "An empty value still names the flag.", arg: "--root-directory=", want: "root-directory"},
		"ValueWithEquals": {reason: "Only the first = ends the name.", arg: "--tls-sni-cert-key=a,b:c=d", want: "tls-sni-cert-key"},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			if diff := cmp.Diff(tc.want, FlagName(tc.arg)); diff != "" {
				t.Errorf("%s\nFlagName(%q): -want, +got:\n%s", tc.reason, tc.arg, diff)
			}
		})
	}
}

func TestGeneratedFlags(t *testing.T) {
	p := field.NewPath("spec", "rootShard", "extra", "args")
	generated := FlagNames([]string{"--etcd-servers=https://etcd:2379", "--client-ca-file=/ca", "--tls-cert-file=/c", "-v=2", "--root-directory="})
	cases := map[string]struct {
		reason string
		args   []string
		want   []string
	}{
		"NewFlags": {
			reason: "Flags the component does not generate are the tenant's to set.",
			args:   []string{"--feature-gates=A=true", "--shard-virtual-workspace-url=https://vw:6443"},
		},
		"SecondEtcdServers": {
			reason: "A second --etcd-servers would move the shard onto another etcd.",
			args:   []string{"--feature-gates=A=true", "--etcd-servers=https://platform-etcd.kube-system:2379"},
			want:   []string{"spec.rootShard.extra.args[1]: Forbidden: --etcd-servers is generated for this component, and given again it would replace the generated value (a flag given twice takes the last value); remove it: fix"},
		},
		"DisguisedWithUnderscores": {
			reason: "--client_ca_file is --client-ca-file to kcp's flag parser.",
			args:   []string{"--client_ca_file=/etc/kcp/tls/other/ca.crt"},
			want:   []string{"spec.rootShard.extra.args[0]: Forbidden: --client-ca-file is generated"},
		},
		"ValueAsNextArgument": {
			reason: "The flag is caught when its value follows as the next argument.",
			args:   []string{"--tls-cert-file", "/mnt/evil/tls.crt"},
			want:   []string{"spec.rootShard.extra.args[0]: Forbidden: --tls-cert-file is generated"},
		},
		"AfterTerminator": {
			reason: "After --, kcp reads no flags.",
			args:   []string{"--", "--etcd-servers=x"},
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			got := messages(GeneratedFlags(p, generated, tc.args, "fix"))
			if len(got) != len(tc.want) {
				t.Fatalf("%s\nGeneratedFlags(): got %q, want %q", tc.reason, got, tc.want)
			}
			for i := range got {
				if len(got[i]) < len(tc.want[i]) || got[i][:len(tc.want[i])] != tc.want[i] {
					t.Errorf("%s\nGeneratedFlags()[%d]:\n got: %s\nwant: %s...", tc.reason, i, got[i], tc.want[i])
				}
			}
		})
	}
}

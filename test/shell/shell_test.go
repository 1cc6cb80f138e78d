package shell

import (
	"slices"
	"testing"
)

// TestParse pins the shell subset the docs use.
func TestParse(t *testing.T) {
	cases := map[string]struct {
		block string
		want  []Command
		err   bool
	}{
		"PipelineAndRedirection": {
			block: "kubectl get secret -o jsonpath='{.data.kubeconfig}' | base64 -d > admin.kubeconfig\n",
			want:  []Command{{Args: []string{"kubectl", "get", "secret", "-o", "jsonpath={.data.kubeconfig}"}}, {Args: []string{"base64", "-d"}}},
		},
		"CommentsAndContinuation": {
			block: "# a comment\nmake demo     # what it does\ncrossplane render a.yaml \\\n  --xrd=b.yaml\n",
			want:  []Command{{Args: []string{"make", "demo"}}, {Args: []string{"crossplane", "render", "a.yaml", "--xrd=b.yaml"}}},
		},
		"Heredoc": {
			block: "kubectl create -f - <<'YAML'\nkind: Workspace\nYAML\nkubectl get ws\n",
			want:  []Command{{Args: []string{"kubectl", "create", "-f", "-"}, Stdin: "kind: Workspace\n"}, {Args: []string{"kubectl", "get", "ws"}}},
		},
		"DoubleQuotesAndAnd": {
			block: `kubectl patch x -p "{\"a\":1}" && diff a -` + "\n",
			want:  []Command{{Args: []string{"kubectl", "patch", "x", "-p", `{"a":1}`}}, {Args: []string{"diff", "a", "-"}}},
		},
		"UnterminatedQuote": {block: "kubectl get 'x\n", err: true},
		"UnclosedHeredoc":   {block: "kubectl create -f - <<EOF\nkind: X\n", err: true},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			got, err := Parse(tc.block)
			if (err != nil) != tc.err {
				t.Fatalf("Parse(...): error %v, want error %v", err, tc.err)
			}
			if !slices.EqualFunc(got, tc.want, func(a, b Command) bool {
				return slices.Equal(a.Args, b.Args) && a.Stdin == b.Stdin
			}) {
				t.Errorf("Parse(...):\n got %q\nwant %q", got, tc.want)
			}
		})
	}
}

package render

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestFatalResult(t *testing.T) {
	type want struct {
		step, message string
		ok            bool
	}
	cases := map[string]struct {
		reason string
		stderr string
		want   want
	}{
		"Fatal": {
			reason: "CLI v2.5.0 reports a Fatal result only on stderr; the step and message are recovered.",
			stderr: `crossplane: error: cannot render composite resource: crossplane internal render: pipeline returned fatal: ` +
				`crossplane: error: cannot render composite resource: cannot compose resources: pipeline step "compose-kcp" returned a fatal result: invalid RootShard kcp/root: spec.external.port: Invalid value: 0` + "\n",
			want: want{step: "compose-kcp", message: "invalid RootShard kcp/root: spec.external.port: Invalid value: 0", ok: true},
		},
		"OtherError": {
			reason: "Any other failure is not a Fatal result.",
			stderr: `crossplane: error: cannot render composite resource: crossplane internal render returned error with output: : signal: killed`,
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			step, msg, ok := fatalResult(tc.stderr)
			if diff := cmp.Diff(tc.want, want{step: step, message: msg, ok: ok}, cmp.AllowUnexported(want{})); diff != "" {
				t.Errorf("%s\nfatalResult(...): -want, +got:\n%s", tc.reason, diff)
			}
		})
	}
}

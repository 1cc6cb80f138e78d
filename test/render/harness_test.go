package render

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestCheckFatal(t *testing.T) {
	fatal := &Output{Fatal: true, Results: objects(`{apiVersion: render.crossplane.io/v1beta1, kind: Result, severity: Fatal, message: invalid RootShard}`)}
	fine := &Output{}
	type args struct {
		expectFatal bool
		outs        []*Output
	}
	cases := map[string]struct {
		reason string
		args   args
		want   string
	}{
		"Fine": {
			reason: "No Fatal result is what an ordinary example wants.",
			args:   args{outs: []*Output{fine}},
		},
		"UnexpectedFatal": {
			reason: "A Fatal result fails an ordinary example and says why.",
			args:   args{outs: []*Output{fine, fatal}},
			want:   "example ex: the pipeline returned Fatal (add an expect-fatal file if that is the point of the example): invalid RootShard",
		},
		"ExpectedFatal": {
			reason: "An expect-fatal example wants a Fatal result.",
			args:   args{expectFatal: true, outs: []*Output{fatal}},
		},
		"MissingFatal": {
			reason: "An expect-fatal example without a Fatal result fails.",
			args:   args{expectFatal: true, outs: []*Output{fine}},
			want:   "example ex has an expect-fatal file, but no render returned a Fatal result",
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			err := checkFatal(Example{Name: "ex", ExpectFatal: tc.args.expectFatal}, tc.args.outs)
			if diff := cmp.Diff(tc.want, errorString(t, err)); diff != "" {
				t.Errorf("%s\ncheckFatal(...): -want, +got:\n%s", tc.reason, diff)
			}
		})
	}
}

package main

import (
	"bytes"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestRun(t *testing.T) {
	cases := map[string]struct {
		reason string
		in     string
		want   string
		err    bool
	}{
		"Results": {
			reason: "Each result line becomes a row; the GOMAXPROCS suffix and the benchmark name go, units are humanised.",
			in: `goos: linux
cpu: Some CPU
BenchmarkRunFunction/RootShard/Converged-2   	    1000	    812345 ns/op	    120000 floor-ns	   6.77 x-floor	  45678 request-bytes	  98765 response-bytes	  345678 B/op	    4321 allocs/op
PASS
`,
			want: `goos: linux
cpu: Some CPU

| input | time/op | B/op | allocs/op | response | request | protobuf floor | x floor |
|---|---|---|---|---|---|---|---|
| RootShard/Converged | 812 µs | 337.6 KiB | 4321 | 96.5 KiB | 44.6 KiB | 120 µs | 6.8x |
`,
		},
		"NoResults": {
			reason: "A run without results (a failed build, say) is an error, not an empty table.",
			in:     "FAIL\n",
			err:    true,
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			var out bytes.Buffer
			err := run(strings.NewReader(tc.in), &out)
			if (err != nil) != tc.err {
				t.Fatalf("%s\nrun(...): err = %v, want error %v", tc.reason, err, tc.err)
			}
			if diff := cmp.Diff(tc.want, out.String()); diff != "" && !tc.err {
				t.Errorf("%s\nrun(...): -want, +got:\n%s", tc.reason, diff)
			}
		})
	}
}

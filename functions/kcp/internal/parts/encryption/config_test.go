package encryption

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	apiserverv1 "k8s.io/apiserver/pkg/apis/apiserver/v1"
	"sigs.k8s.io/yaml"
)

func TestConfig(t *testing.T) {
	cases := map[string]struct {
		reason string
		cfg    Config
		want   string
	}{
		"Rotating": {
			reason: "The writer first, the other keys after it, identity last, each in its own provider.",
			cfg: Config{Resources: []string{"secrets", "configmaps"}, Keys: []Key{
				{Provider: "secretbox", Name: "key-2", Secret: []byte(strings.Repeat("2", 32))},
				{Provider: "aescbc", Name: "key-1", Secret: []byte(strings.Repeat("1", 16))},
				IdentityKey,
			}},
			want: "secrets,configmaps;secretbox:key-2,aescbc:key-1,identity",
		},
		"Decrypted": {
			reason: "identity alone writes plain data.",
			cfg:    Config{Resources: []string{"secrets"}, Keys: []Key{IdentityKey}},
			want:   "secrets;identity",
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			out := tc.cfg.Marshal()
			// The API server's own types, decoded strictly: every field is one kcp reads.
			var upstream apiserverv1.EncryptionConfiguration
			if err := yaml.UnmarshalStrict(out, &upstream); err != nil {
				t.Fatalf("%s\nMarshal() is no EncryptionConfiguration: %v\n%s", tc.reason, err, out)
			}
			if upstream.Kind != "EncryptionConfiguration" || upstream.APIVersion != "apiserver.config.k8s.io/v1" || len(upstream.Resources[0].Providers) != len(tc.cfg.Keys) {
				t.Errorf("%s\nMarshal() = %s", tc.reason, out)
			}
			back, err := Parse(out)
			if err != nil {
				t.Fatalf("%s\nParse(Marshal()): %v", tc.reason, err)
			}
			if diff := cmp.Diff(tc.cfg, back); diff != "" {
				t.Errorf("%s\nParse(Marshal()) -want, +got:\n%s", tc.reason, diff)
			}
			if got := back.State(); got != tc.want {
				t.Errorf("%s\nState() = %q, want %q", tc.reason, got, tc.want)
			}
		})
	}
}

func TestParseRefuses(t *testing.T) {
	for name, in := range map[string]string{
		"NotYAML":      "{",
		"TwoGroups":    "apiVersion: apiserver.config.k8s.io/v1\nkind: EncryptionConfiguration\nresources: [{resources: [a], providers: [{identity: {}}]}, {resources: [b], providers: [{identity: {}}]}]\n",
		"UnknownField": "apiVersion: apiserver.config.k8s.io/v1\nkind: EncryptionConfiguration\nresources: [{resources: [a], providers: [{kms: {}}]}]\n",
	} {
		t.Run(name, func(t *testing.T) {
			if _, err := Parse([]byte(in)); err == nil {
				t.Errorf("Parse(%q) = nil error, want one: only what Marshal writes is read back", in)
			}
		})
	}
}

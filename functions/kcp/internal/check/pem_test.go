package check

import (
	"encoding/pem"
	"testing"

	"github.com/configuration-kcp/configuration-kcp/functions/kcp/internal/testworld"
)

func TestPEMCertificates(t *testing.T) {
	ca := []byte(testworld.CAPEM())
	// The check refuses a block by its type before reading it: any bytes make a key here.
	key := pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: []byte{1, 2, 3}})
	join := func(parts ...[]byte) []byte {
		var out []byte
		for _, p := range parts {
			out = append(out, p...)
		}
		return out
	}
	cases := map[string]struct {
		reason string
		data   []byte
		want   string
	}{
		"One":                {reason: "A single certificate is a bundle.", data: ca},
		"Bundle":             {reason: "Several certificates, one after another, are a bundle.", data: join(ca, ca)},
		"TrailingWhitespace": {reason: "Whitespace after the last block is accepted, unlike kcp-operator.", data: join(ca, []byte("\n\n  \n"))},
		"Empty":              {reason: "Nothing is no certificate.", data: nil, want: "holds no PEM certificate"},
		"Garbage":            {reason: "Data without a PEM block is no certificate.", data: []byte("hello"), want: "holds no PEM certificate"},
		"TrailingGarbage":    {reason: "Data after the certificates is refused, and not quoted.", data: join(ca, []byte("oops")), want: "holds data that is not PEM after its certificates"},
		"Key":                {reason: "A private key is never trusted as a certificate.", data: key, want: `holds a PEM block of type "PRIVATE KEY" (block 1); only CERTIFICATE blocks are allowed`},
		"KeyAfterCertificate": {reason: "The refusal names the block that is not a certificate.", data: join(ca, key),
			want: `holds a PEM block of type "PRIVATE KEY" (block 2); only CERTIFICATE blocks are allowed`},
		"BadDER": {reason: "A CERTIFICATE block must parse as X.509.", data: []byte("-----BEGIN CERTIFICATE-----\nAAAA\n-----END CERTIFICATE-----\n"),
			want: "holds a certificate that does not parse (block 1): x509: malformed certificate"},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			got := ""
			if err := PEMCertificates(tc.data); err != nil {
				got = err.Error()
			}
			if got != tc.want {
				t.Errorf("%s\nPEMCertificates: got %q, want %q", tc.reason, got, tc.want)
			}
		})
	}
}

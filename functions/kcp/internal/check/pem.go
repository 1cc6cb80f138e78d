package check

import (
	"bytes"
	"crypto/x509"
	"encoding/pem"
	"errors"
	"fmt"
)

// PEMCertificates checks that data holds only PEM CERTIFICATE blocks that parse as X.509
// certificates, as kcp-operator does before trusting a CA bundle; unlike kcp-operator,
// trailing whitespace is accepted. The error describes the first problem, completes a
// sentence about the key that holds data (`key "ca.crt" holds ...`), and never quotes the
// data.
func PEMCertificates(data []byte) error {
	block, rest := pem.Decode(data)
	if block == nil {
		return errors.New("holds no PEM certificate")
	}
	for n := 1; block != nil; n++ {
		if block.Type != "CERTIFICATE" {
			return fmt.Errorf("holds a PEM block of type %q (block %d); only CERTIFICATE blocks are allowed", block.Type, n)
		}
		if _, err := x509.ParseCertificate(block.Bytes); err != nil {
			return fmt.Errorf("holds a certificate that does not parse (block %d): %w", n, err)
		}
		block, rest = pem.Decode(rest)
	}
	if len(bytes.TrimSpace(rest)) > 0 {
		return errors.New("holds data that is not PEM after its certificates")
	}
	return nil
}

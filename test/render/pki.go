package render

import (
	"crypto/x509"
	"embed"
	"encoding/pem"
	"fmt"
	"time"
)

//go:generate go run ./cmd/pkigen -out testdata/pki

//go:embed testdata/pki
var pkiFiles embed.FS

// KeyPair is a fixture certificate (PEM) with its key (PEM).
type KeyPair struct {
	Cert, Key []byte
	NotBefore time.Time
	NotAfter  time.Time
}

// PKI is the fixture chain put into simulated cert-manager Secrets: committed rather than
// generated per run because key generation is random and golden files must not change.
type PKI struct {
	RootCA, IntermediateCA, Leaf KeyPair
}

// FixturePKI loads the committed fixture chain.
func FixturePKI() (PKI, error) {
	var p PKI
	for name, kp := range map[string]*KeyPair{"root-ca": &p.RootCA, "intermediate-ca": &p.IntermediateCA, "leaf": &p.Leaf} {
		loaded, err := loadKeyPair(name)
		if err != nil {
			return PKI{}, err
		}
		*kp = loaded
	}
	return p, nil
}

func loadKeyPair(name string) (KeyPair, error) {
	crt, err := pkiFiles.ReadFile("testdata/pki/" + name + ".crt")
	if err != nil {
		return KeyPair{}, err
	}
	key, err := pkiFiles.ReadFile("testdata/pki/" + name + ".key")
	if err != nil {
		return KeyPair{}, err
	}
	block, _ := pem.Decode(crt)
	if block == nil {
		return KeyPair{}, fmt.Errorf("testdata/pki/%s.crt holds no PEM block", name)
	}
	c, err := x509.ParseCertificate(block.Bytes)
	if err != nil {
		return KeyPair{}, fmt.Errorf("testdata/pki/%s.crt: %w", name, err)
	}
	return KeyPair{Cert: crt, Key: key, NotBefore: c.NotBefore.UTC(), NotAfter: c.NotAfter.UTC()}, nil
}

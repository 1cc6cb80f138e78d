package main

import "github.com/cert-manager/cert-manager/pkg/controller"

// withUpstreamBackoff has nothing to set on cert-manager v1.19: its backoff after a failed
// CertificateRequest (from 1h, to 32h) is built in. See ../cert-manager/backoff.go.
func withUpstreamBackoff(*controller.CertificateOptions) {}

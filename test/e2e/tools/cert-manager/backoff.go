package main

import (
	"time"

	"github.com/cert-manager/cert-manager/pkg/controller"
)

// withUpstreamBackoff sets the backoff after a failed CertificateRequest to the defaults of
// upstream's controller configuration (v1.21: from 1h, doubling, to 32h). cert-manager v1.21
// reads it from CertificateOptions, where zero means no backoff at all: a failing
// Certificate would be re-issued at once, again and again, which no user's cert-manager does.
// main.go is shared with ../cert-manager-oldest, whose v1.19 has no such fields: this file
// is the one place the two modules differ.
func withUpstreamBackoff(o *controller.CertificateOptions) {
	o.CertificateRequestMinimumBackoffDuration = time.Hour
	o.CertificateRequestMaximumBackoffDuration = 32 * time.Hour
}

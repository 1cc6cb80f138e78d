// Package gosdk is a stand-in for the Nebius Go SDK, not the SDK itself.
//
// provider-kubernetes v1.3.1 links the SDK for one thing: a ProviderConfig whose
// identity is a Nebius service account. The Go module proxy refuses the
// github.com/nebius/gosdk v0.2.28 it requires, so ../go.mod replaces the SDK with
// this module, which has exactly the names the provider calls. The e2e never
// configures a Nebius identity; if something did, New fails and says why, and the
// provider reports that on the ProviderConfig's user instead of minting a token.
package gosdk

import (
	"context"
	"errors"

	"github.com/nebius/gosdk/auth"
)

// ErrStandIn is what every call that would reach Nebius returns.
var ErrStandIn = errors.New("Nebius identities are not available in this e2e build of provider-kubernetes: " +
	"github.com/nebius/gosdk is a stand-in (test/e2e/tools/provider-kubernetes/nebius-gosdk-standin)")

// SDK would hold a Nebius client.
type SDK struct{}

// Option configures New.
type Option func()

// Credentials would say how New authenticates.
type Credentials struct{}

// WithCredentials is accepted and ignored: New fails anyway.
func WithCredentials(Credentials) Option { return func() {} }

// ServiceAccountReader is accepted and ignored: New fails anyway.
func ServiceAccountReader(auth.ServiceAccountReader) Credentials { return Credentials{} }

// New always fails with ErrStandIn.
func New(context.Context, ...Option) (*SDK, error) { return nil, ErrStandIn }

// BearerToken always fails with ErrStandIn; New never returns an SDK to call it on.
func (*SDK) BearerToken(context.Context) (auth.BearerToken, error) {
	return auth.BearerToken{}, ErrStandIn
}

// Package auth holds the stand-in's types the provider names; see the gosdk package.
package auth

// BearerToken would be a Nebius IAM token.
type BearerToken struct {
	Token string
}

// ServiceAccountReader would read a service account's credentials.
type ServiceAccountReader interface{}

// NewPrivateKeyParser keeps nothing: the stand-in never authenticates.
func NewPrivateKeyParser([]byte, string, string) ServiceAccountReader { return struct{}{} }

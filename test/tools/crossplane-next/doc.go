// Package crossplanenext pins the newer of the two Crossplane core versions the e2e runs on
// (make/tools.mk builds it into bin/crossplane-core-next). It is a module of its own because
// one module holds one version of github.com/crossplane/crossplane/v2, and ../go.mod pins the
// older one. It has no code: the tool directive in go.mod is all it is for, with the
// replace of crossplane-runtime that ../README.md explains.
package crossplanenext

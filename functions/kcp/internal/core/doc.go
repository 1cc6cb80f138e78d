// Package core groups what the function reads from Crossplane and writes back, the same for
// every kind. Everything else builds on these and nothing here knows a kind, so a composer
// is a pure function from observed to result that tests call without gRPC. Its packages:
//
//   - observed reads the request's observed and required resources: issued certificates,
//     Secrets, Deployments, XRs
//   - desired collects the composed resources of the response, with their readiness
//   - resource holds composition resource names, readiness and the unstructured form
//   - condition holds XR conditions
//   - result holds what composing one XR produced: desired objects, status, conditions,
//     requirements and warnings
//
// This directory holds only this comment; shape_test.go in functions/kcp holds the layers,
// and test/style's TestGroupDocsNameEverySubpackage holds this list to the directories here.
package core

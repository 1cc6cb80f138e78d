// Package core groups what the function reads from Crossplane and writes back, the same for
// every kind: observed (the request's observed and required resources), desired (the
// composed resources of the response), resource (their names, readiness and unstructured
// form), condition (XR conditions) and result (what composing one XR produced). Everything
// else builds on these and nothing here knows a kind, so a composer is a pure function from
// observed to result that tests call without gRPC.
//
// This directory holds only this comment; shape_test.go in functions/kcp holds the layers.
package core

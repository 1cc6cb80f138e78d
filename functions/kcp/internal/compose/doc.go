// Package compose groups the machinery every kind composes with. None of it knows a
// particular kind. Its packages:
//
//   - builder composes objects with their readiness, keeps what runs when an input goes
//     missing and reports conditions: the one place that decides readiness, and where
//     never-destroy-on-doubt lives
//   - inputs knows where every mounted Secret and ConfigMap comes from and whether a workload
//     may roll out
//   - required reads the XRs an XR refers to, as required resources
//   - placement runs a component's workload in another cluster through provider-kubernetes
//   - policy reads the platform's policy and holds to it every certificate a tenant's XR can
//     cause, with the table of every kind a tenant can write
//   - sharing holds what a Tenant and a team's XRs agree on when a kcp is shared
//   - rotation decides the order of a key rotation from what is observed
//
// This directory holds only this comment; shape_test.go in functions/kcp holds the layers,
// and test/style's TestGroupDocsNameEverySubpackage holds this list to the directories here.
package compose

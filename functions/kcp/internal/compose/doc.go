// Package compose groups the machinery every kind composes with: builder composes objects
// with their readiness, keeps what runs when an input goes missing and reports conditions
// (the one place that decides readiness, and where never-destroy-on-doubt lives); inputs
// knows where every mounted Secret and ConfigMap comes from and whether a workload may roll
// out; required reads the XRs an XR refers to; policy reads the platform's policy and holds every
// certificate a tenant's XR can cause to it. None of it knows a particular kind.
//
// This directory holds only this comment; shape_test.go in functions/kcp holds the layers.
package compose

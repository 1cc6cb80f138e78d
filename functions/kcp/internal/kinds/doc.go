// Package kinds groups one package per XR kind, side by side: each decodes nothing and
// serves nothing, it validates its typed XR, warns, and composes it from the observed state.
// fn.go's table of kinds holds one row per package here, and no kind imports another: what
// two kinds share goes into names, check, parts or compose. A kind that composes other kinds'
// XRs (KcpInstallation) builds them from the API types and names, and has them checked by
// the table. Adding a kind is a package here and a row in that table.
//
// This directory holds only this comment; shape_test.go in functions/kcp holds the layers.
package kinds

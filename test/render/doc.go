// Package render renders the examples of configuration-kcp through `crossplane composition
// render`, twice per XR: fresh (nothing exists yet) and converged (a simulated cluster in
// which cert-manager issues every Certificate and every Deployment becomes available, fed
// back as observed and required resources until the composed resources stop changing).
//
// It backs `make render` (cmd/kcp-render) and this package's tests:
//
//   - TestGolden compares each render with testdata/golden/<example>/{fresh,converged}.yaml.
//     After an intended change: `go test ./test/render -update`, then review the diff.
//   - TestValidate checks each render with `crossplane resource validate`, offline.
//
// Simulated certificates hold the committed fixture chain in testdata/pki; `go generate
// ./test/render` replaces it (and so changes golden files).
package render

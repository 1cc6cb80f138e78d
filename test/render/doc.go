// Package render renders the examples of configuration-kcp through `crossplane composition
// render`, every XR of an example twice: fresh (nothing composed yet) and converged (a
// simulated cluster in which cert-manager issues every Certificate and every Deployment
// becomes available, fed back as observed and required resources until nothing changes).
//
// The XRs of an example share one simulated world, as they would share a namespace:
//
//   - Fresh, each XR is offered as required resources the example's Secrets and ConfigMaps
//     and every other XR of the example as written.
//   - Converged, each XR observes what it composed, and is offered the example's Secrets and
//     ConfigMaps, every other XR as last rendered (with its status), the Secrets cert-manager
//     wrote for any XR's Certificates, and the Secrets and ConfigMaps any XR composed. Every
//     iteration renders every XR whose world changed; the example has converged when no
//     XR's composed resources, and (with more than one XR) no XR, changed.
//   - A composed Secret that sets only metadata, named like a Secret cert-manager wrote,
//     adopts it, as server-side apply would: the two are one object, cert-manager's type and
//     data with the composed labels, annotations and owner references, which the adopting XR
//     observes under its composition resource name and every XR is offered.
//
// The function picks from what is offered by name or by labels, as from an API server:
// render's in-memory client matches an empty label selector to every object of the kind in
// the namespace. An XR is never offered to its own render: render would store the copy in
// place of the XR it reconciles.
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

package sharing

import (
	"encoding/json"
	"fmt"

	"k8s.io/apimachinery/pkg/util/validation/field"
)

// A Tenant reads every Kubeconfig and Workspace of its team's namespace, as stored: the
// metadata and spec the team writes, no XRD bounding metadata (labels, annotations, managed
// fields), and the status Crossplane and the function write. A ResourceQuota bounds how many
// there are (MaxTeamXRs each); TeamXRBytes bounds the team's part of each, TeamStatusBytes
// the status, so that together they stay within what the Tenant's request leaves for them
// (docs/performance.md). A team XR kept small by its author weighs 2 to 4 KiB with
// Crossplane's managed fields and kubectl's last-applied annotation.
const (
	// TeamXRBytes is the most a team's Kubeconfig or Workspace may weigh as stored, less
	// its status: its metadata and spec.
	TeamXRBytes = 6 << 10
	// TeamStatusBytes bounds the status of a team's XR: the function's fields and
	// conditions (messages of at most 1 KiB) and Crossplane's (a refusal's message is at
	// most MaxRefusalBytes).
	TeamStatusBytes = 4 << 10
	// MaxRefusalBytes bounds the message of a refused XR, which Crossplane puts in its status.
	MaxRefusalBytes = 1536
	// MaxTeamXRs is the most Kubeconfigs, and the most Workspaces, of a team's namespace a
	// Tenant reads: the quota must bound both at or below it.
	MaxTeamXRs = 32
	// TeamReadCapacity is what a team's XRs may add to its Tenant's request.
	TeamReadCapacity = 2 * MaxTeamXRs * (TeamXRBytes + TeamStatusBytes)
)

// sizedParts are the parts of a stored object a team writes, most specific first: each is
// charged once, to the first that holds it. The status is not the team's: the function and
// Crossplane bound it (TeamStatusBytes), and counting it would let a refusal's own message
// change the verdict.
var sizedParts = [][]string{
	{"metadata", "annotations"},
	{"metadata", "labels"},
	{"metadata", "managedFields"},
	{"metadata"},
	{"spec"},
}

// CheckStoredSize refuses a team's XR whose metadata and spec weigh more than TeamXRBytes
// as stored, naming its largest part and what to do about it. obj is the typed XR, as the Tenant and the XR's
// own composition both read it, so both reach the same verdict; what the API types do not
// hold (spec.crossplane) Crossplane writes and keeps small.
func CheckStoredSize(kind string, obj any) field.ErrorList {
	_, errs := weighed(kind, obj)
	return errs
}

// weighed is what obj weighs as CheckStoredSize weighs it, and its refusal when too heavy:
// one weighing for both.
func weighed(kind string, obj any) (int, field.ErrorList) {
	weight, parts := weigh(obj)
	if weight <= TeamXRBytes {
		return weight, nil
	}
	largest := parts[0]
	for _, p := range parts[1:] {
		if p.bytes > largest.bytes {
			largest = p
		}
	}
	p := field.NewPath(largest.path[0], largest.path[1:]...)
	return weight, field.ErrorList{field.Forbidden(p, fmt.Sprintf("this %s weighs %d bytes in metadata and spec, %d of them in %s; a team's %s may weigh at most %d, so that what it asks of its Tenant stays small: %s",
		kind, weight, largest.bytes, p, kind, TeamXRBytes, advice(p.String())))}
}

// Weight is the JSON size of a team XR's metadata and spec, as CheckStoredSize weighs it.
func Weight(obj any) int {
	w, _ := weigh(obj)
	return w
}

// part is the JSON size of one of sizedParts.
type part struct {
	path  []string
	bytes int
}

// weigh is the JSON size of obj's metadata and spec, and of each of sizedParts.
func weigh(obj any) (int, []part) {
	b, err := json.Marshal(obj)
	if err != nil {
		return 0, nil
	}
	var m map[string]any
	if json.Unmarshal(b, &m) != nil {
		return 0, nil
	}
	weight := 0
	var parts []part
	for _, p := range sizedParts {
		parts = append(parts, part{p, takeSize(m, p)})
		weight += parts[len(parts)-1].bytes
	}
	return weight, parts
}

// takeSize removes the value at path from m and returns its JSON size.
func takeSize(m map[string]any, path []string) int {
	for _, k := range path[:len(path)-1] {
		next, ok := m[k].(map[string]any)
		if !ok {
			return 0
		}
		m = next
	}
	last := path[len(path)-1]
	v, ok := m[last]
	if !ok {
		return 0
	}
	delete(m, last)
	b, _ := json.Marshal(v)
	return len(b)
}

// advice says how to shrink a part of a team's XR.
func advice(part string) string {
	switch part {
	case "metadata.annotations":
		return "remove annotations (kubectl apply keeps a copy of the object in one; kubectl apply --server-side does not)"
	case "metadata.managedFields":
		return "apply it with one field manager"
	default:
		return "make " + part + " smaller"
	}
}

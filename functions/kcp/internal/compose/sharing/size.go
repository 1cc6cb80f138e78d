package sharing

import (
	"encoding/json"
	"fmt"
	"sort"

	"k8s.io/apimachinery/pkg/util/validation/field"
)

// A Tenant reads every Kubeconfig and Workspace of its team's namespace, as stored: spec,
// status, and metadata no XRD bounds (labels, annotations, managed fields). A ResourceQuota
// bounds how many there are (MaxTeamXRs each); TeamXRBytes bounds how large each may be, so
// that together they stay within what the Tenant's request leaves for them
// (docs/performance.md). A team XR kept small by its author weighs 2 to 4 KiB with
// Crossplane's status and managed fields and kubectl's last-applied annotation.
const (
	// TeamXRBytes is the most a team's Kubeconfig or Workspace may weigh as stored.
	TeamXRBytes = 8 << 10
	// MaxTeamXRs is the most Kubeconfigs, and the most Workspaces, of a team's namespace a
	// Tenant reads: the quota must bound both at or below it.
	MaxTeamXRs = 32
	// TeamReadCapacity is what a team's XRs may add to its Tenant's request.
	TeamReadCapacity = 2 * MaxTeamXRs * TeamXRBytes
)

// sizedParts are the parts of a stored object a team can make large, most specific first:
// each is charged once, to the first that holds it.
var sizedParts = [][]string{
	{"metadata", "annotations"},
	{"metadata", "labels"},
	{"metadata", "managedFields"},
	{"metadata"},
	{"spec"},
	{"status"},
}

// CheckStoredSize refuses a team's XR that weighs more than TeamXRBytes as stored, naming
// its largest part and what to do about it. obj is the typed XR, as the Tenant and the XR's
// own composition both read it, so both reach the same verdict; what the API types do not
// hold (spec.crossplane) Crossplane writes and keeps small.
func CheckStoredSize(kind string, obj any) field.ErrorList {
	b, err := json.Marshal(obj)
	if err != nil || len(b) <= TeamXRBytes {
		return nil
	}
	var m map[string]any
	if json.Unmarshal(b, &m) != nil {
		return nil
	}
	type part struct {
		path  []string
		bytes int
	}
	var parts []part
	for _, p := range sizedParts {
		parts = append(parts, part{p, takeSize(m, p)})
	}
	sort.SliceStable(parts, func(i, j int) bool { return parts[i].bytes > parts[j].bytes })
	largest := parts[0]
	p := field.NewPath(largest.path[0], largest.path[1:]...)
	return field.ErrorList{field.Forbidden(p, fmt.Sprintf("this %s weighs %d bytes as stored, %d of them in %s; a team's %s may weigh at most %d, because its Tenant reads every one of the namespace's: %s",
		kind, len(b), largest.bytes, p, kind, TeamXRBytes, advice(p.String())))}
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
	case "status":
		return "its status is written by Crossplane and the function; report this to the platform team"
	default:
		return "make " + part + " smaller"
	}
}

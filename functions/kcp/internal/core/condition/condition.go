// Package condition holds the XR conditions composers report, independent of the SDK so
// composers stay pure functions that are easy to test.
package condition

// Condition is one XR status condition set by the function.
type Condition struct {
	Type    string
	Status  bool
	Reason  string
	Message string
}

// Condition types the function reports on every kcp XR. Crossplane reserves Ready, Synced
// and Healthy.
const (
	// TypeCertificatesReady says whether cert-manager has issued every Certificate of the XR.
	TypeCertificatesReady = "CertificatesReady"
	// TypeInputsReady says whether every Secret or ConfigMap the user referenced exists and
	// every Secret the function derives from them could be built.
	TypeInputsReady = "InputsReady"
	// TypeAvailable says whether the XR's main Deployment is fully rolled out, as in kcp-operator.
	TypeAvailable = "Available"
	// TypeUpgraded says whether the XR's Deployment is composed with the image spec.image
	// names, or keeps its image until the component it depends on runs the new one.
	TypeUpgraded = "Upgraded"
)

// Reasons.
const (
	ReasonIssued              = "Issued"
	ReasonIssuing             = "Issuing"
	ReasonAllPresent          = "AllPresent"
	ReasonMissing             = "Missing"
	ReasonReplicasUp          = "ReplicasUp"
	ReasonReplicasUnavailable = "ReplicasUnavailable"
	ReasonWaitingForInputs    = "WaitingForInputs"
	ReasonRolloutFailed       = "RolloutFailed"
	// ReasonClusterUnreachable: the workload runs in another cluster that provider-kubernetes
	// cannot reach or write to; what runs there is kept and last seen as reported.
	ReasonClusterUnreachable = "ClusterUnreachable"
	ReasonImageComposed      = "ImageComposed"
	ReasonWaitingForLeader   = "WaitingForUpgradeOrder"
)

// Truncate cuts s to at most n bytes, on a rune boundary, marking the cut: messages land in
// an XR's status, which other XRs read.
func Truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	const mark = " ..."
	cut := max(0, n-len(mark))
	for cut > 0 && !validStart(s[cut]) {
		cut--
	}
	return s[:cut] + mark
}

// validStart reports whether b starts a UTF-8 sequence.
func validStart(b byte) bool { return b&0xC0 != 0x80 }

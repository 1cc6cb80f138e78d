package render

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"
	"sigs.k8s.io/yaml"
)

// restrictedViolations lists what in a pod spec breaks Pod Security "restricted" (the rules
// of Kubernetes' pod security standards that a composed pod could break: non-root, no
// privilege escalation, every capability dropped, RuntimeDefault or Localhost seccomp, only
// the volume types restricted allows, no host namespaces or ports), and whether the pod
// mounts a service account token.
func restrictedViolations(pod corev1.PodSpec) []string {
	var out []string
	psc := pod.SecurityContext
	if psc == nil {
		psc = &corev1.PodSecurityContext{}
	}
	if pod.HostNetwork || pod.HostPID || pod.HostIPC {
		out = append(out, "host namespaces")
	}
	if pod.AutomountServiceAccountToken == nil || *pod.AutomountServiceAccountToken {
		out = append(out, "automountServiceAccountToken is not false")
	}
	for _, v := range pod.Volumes {
		s := v.VolumeSource
		if s.Secret == nil && s.ConfigMap == nil && s.EmptyDir == nil && s.Projected == nil &&
			s.DownwardAPI == nil && s.PersistentVolumeClaim == nil && s.Ephemeral == nil && s.CSI == nil {
			out = append(out, "volume "+v.Name+" of a type restricted forbids")
		}
	}
	for _, c := range append(append([]corev1.Container{}, pod.InitContainers...), pod.Containers...) {
		sc := c.SecurityContext
		if sc == nil {
			sc = &corev1.SecurityContext{}
		}
		nonRoot := sc.RunAsNonRoot
		if nonRoot == nil {
			nonRoot = psc.RunAsNonRoot
		}
		if nonRoot == nil || !*nonRoot {
			out = append(out, c.Name+": runAsNonRoot is not true")
		}
		if (sc.RunAsUser != nil && *sc.RunAsUser == 0) || (sc.RunAsUser == nil && psc.RunAsUser != nil && *psc.RunAsUser == 0) {
			out = append(out, c.Name+": runAsUser 0")
		}
		if sc.AllowPrivilegeEscalation == nil || *sc.AllowPrivilegeEscalation {
			out = append(out, c.Name+": allowPrivilegeEscalation is not false")
		}
		if sc.Privileged != nil && *sc.Privileged {
			out = append(out, c.Name+": privileged")
		}
		if sc.Capabilities == nil || !dropsAll(sc.Capabilities.Drop) {
			out = append(out, c.Name+": capabilities do not drop ALL")
		}
		if sc.Capabilities != nil {
			for _, a := range sc.Capabilities.Add {
				if a != "NET_BIND_SERVICE" {
					out = append(out, c.Name+": adds capability "+string(a))
				}
			}
		}
		seccomp := sc.SeccompProfile
		if seccomp == nil {
			seccomp = psc.SeccompProfile
		}
		if seccomp == nil || (seccomp.Type != corev1.SeccompProfileTypeRuntimeDefault && seccomp.Type != corev1.SeccompProfileTypeLocalhost) {
			out = append(out, c.Name+": seccomp profile is not RuntimeDefault or Localhost")
		}
		for _, p := range c.Ports {
			if p.HostPort != 0 {
				out = append(out, c.Name+": host port")
			}
		}
	}
	return out
}

func dropsAll(caps []corev1.Capability) bool {
	for _, c := range caps {
		if c == "ALL" {
			return true
		}
	}
	return false
}

// TestRestrictedViolations checks the checker, so that TestEveryPodIsRestricted cannot pass
// because it sees nothing.
func TestRestrictedViolations(t *testing.T) {
	yes, no := true, false
	good := func() corev1.PodSpec {
		return corev1.PodSpec{
			AutomountServiceAccountToken: &no,
			SecurityContext:              &corev1.PodSecurityContext{RunAsNonRoot: &yes, SeccompProfile: &corev1.SeccompProfile{Type: corev1.SeccompProfileTypeRuntimeDefault}},
			Containers: []corev1.Container{{Name: "kcp", SecurityContext: &corev1.SecurityContext{
				AllowPrivilegeEscalation: &no, Capabilities: &corev1.Capabilities{Drop: []corev1.Capability{"ALL"}},
			}}},
		}
	}
	cases := map[string]struct {
		reason string
		mod    func(*corev1.PodSpec)
		want   []string
	}{
		"Restricted": {reason: "What the package composes passes.", mod: func(*corev1.PodSpec) {}},
		"NoRunAsNonRoot": {
			reason: "kcp-operator sets no runAsNonRoot: restricted refuses that.",
			mod:    func(p *corev1.PodSpec) { p.SecurityContext.RunAsNonRoot = nil },
			want:   []string{"kcp: runAsNonRoot is not true"},
		},
		"Token": {
			reason: "A pod mounts a token unless told not to.",
			mod:    func(p *corev1.PodSpec) { p.AutomountServiceAccountToken = nil },
			want:   []string{"automountServiceAccountToken is not false"},
		},
		"Escalation": {
			reason: "allowPrivilegeEscalation must be false.",
			mod:    func(p *corev1.PodSpec) { p.Containers[0].SecurityContext.AllowPrivilegeEscalation = nil },
			want:   []string{"kcp: allowPrivilegeEscalation is not false"},
		},
		"Capabilities": {
			reason: "Every capability must be dropped.",
			mod:    func(p *corev1.PodSpec) { p.Containers[0].SecurityContext.Capabilities = nil },
			want:   []string{"kcp: capabilities do not drop ALL"},
		},
		"Seccomp": {
			reason: "Seccomp must be RuntimeDefault or Localhost.",
			mod:    func(p *corev1.PodSpec) { p.SecurityContext.SeccompProfile = nil },
			want:   []string{"kcp: seccomp profile is not RuntimeDefault or Localhost"},
		},
		"HostPath": {
			reason: "A hostPath volume is not allowed.",
			mod: func(p *corev1.PodSpec) {
				p.Volumes = []corev1.Volume{{Name: "host", VolumeSource: corev1.VolumeSource{HostPath: &corev1.HostPathVolumeSource{Path: "/"}}}}
			},
			want: []string{"volume host of a type restricted forbids"},
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			p := good()
			tc.mod(&p)
			if diff := cmp.Diff(tc.want, restrictedViolations(p)); diff != "" {
				t.Errorf("%s\nrestrictedViolations(...): -want, +got:\n%s", tc.reason, diff)
			}
		})
	}
}

// TestEveryPodIsRestricted holds every pod template of every reviewed golden render (every
// example, fresh and converged: every kind, kcp, proxies, cache server, virtual workspaces,
// managed etcd and its backup CronJobs) to Pod Security "restricted". The e2e proves the same against the real
// admission plugin in namespaces that enforce it.
func TestEveryPodIsRestricted(t *testing.T) {
	files, err := filepath.Glob(filepath.Join("testdata", "golden", "*", "*.yaml"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no golden renders: %v", err)
	}
	pods := 0
	for _, f := range files {
		raw, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		for _, doc := range strings.Split(string(raw), "\n---\n") {
			var o struct {
				Kind     string `json:"kind"`
				Metadata struct {
					Name string `json:"name"`
				} `json:"metadata"`
				Spec struct {
					Template    *corev1.PodTemplateSpec `json:"template"`
					JobTemplate *struct {
						Spec struct {
							Template *corev1.PodTemplateSpec `json:"template"`
						} `json:"spec"`
					} `json:"jobTemplate"`
				} `json:"spec"`
			}
			if err := yaml.Unmarshal([]byte(doc), &o); err != nil {
				t.Fatalf("%s: %v", f, err)
			}
			if o.Kind == "CronJob" && o.Spec.JobTemplate != nil {
				o.Spec.Template = o.Spec.JobTemplate.Spec.Template // managed etcd's backups
			}
			if (o.Kind != "Deployment" && o.Kind != "StatefulSet" && o.Kind != "CronJob") || o.Spec.Template == nil {
				continue
			}
			pods++
			if v := restrictedViolations(o.Spec.Template.Spec); len(v) > 0 {
				t.Errorf("%s: %s %s breaks Pod Security restricted: %v", f, o.Kind, o.Metadata.Name, v)
			}
		}
	}
	if pods < 20 {
		t.Errorf("only %d pod templates in the golden renders; the test reads them wrongly", pods)
	}
}

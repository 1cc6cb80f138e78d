package realkcp

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// fakeReader answers GetJSON and SecretData from fixed objects: the unit tests run without a
// control plane.
type fakeReader struct {
	secrets    map[string]map[string][]byte
	configMaps map[string]corev1.ConfigMap
	services   corev1.ServiceList
}

func (f fakeReader) GetJSON(_ context.Context, out any, args ...string) error {
	var v any
	switch args[0] {
	case "configmap":
		cm, ok := f.configMaps[args[len(args)-1]]
		if !ok {
			return fmt.Errorf("configmap %s not found", args[len(args)-1])
		}
		v = cm
	case "services":
		v = f.services
	default:
		return fmt.Errorf("fakeReader: %v", args)
	}
	b, err := json.Marshal(v)
	if err != nil {
		return err
	}
	return json.Unmarshal(b, out)
}

func (f fakeReader) SecretData(_ context.Context, _, name string) (map[string][]byte, error) {
	d, ok := f.secrets[name]
	if !ok {
		return nil, fmt.Errorf("secret %s not found", name)
	}
	return d, nil
}

func TestExpand(t *testing.T) {
	vars := map[string]string{"POD_NAME": "etcd-0", "NS": "kcp"}
	cases := map[string]struct {
		reason string
		in     string
		want   string
	}{
		"Plain":    {reason: "An argument without references is unchanged.", in: "--name=etcd", want: "--name=etcd"},
		"One":      {reason: "$(POD_NAME) becomes the pod's name, as the kubelet expands it.", in: "--name=$(POD_NAME)", want: "--name=etcd-0"},
		"Several":  {reason: "Every reference in one argument is expanded.", in: "https://$(POD_NAME).m.$(NS).svc", want: "https://etcd-0.m.kcp.svc"},
		"Unknown":  {reason: "A reference to an undefined variable stays as written, as the kubelet leaves it.", in: "$(NOPE)", want: "$(NOPE)"},
		"ShellVar": {reason: "$VAR without parentheses is not a kubelet reference.", in: "$POD_NAME", want: "$POD_NAME"},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			if diff := cmp.Diff(tc.want, expand(tc.in, vars)); diff != "" {
				t.Errorf("%s\nexpand(%q): -want, +got:\n%s", tc.reason, tc.in, diff)
			}
		})
	}
}

func TestWriteVolumes(t *testing.T) {
	r := fakeReader{
		secrets: map[string]map[string][]byte{
			"root-server": {"tls.crt": []byte("CRT"), "tls.key": []byte("KEY")},
			"kubeconfig":  {"kubeconfig": []byte("KC"), "other": []byte("X")},
		},
		configMaps: map[string]corev1.ConfigMap{"cfg": {Data: map[string]string{"path-mapping.yaml": "- path: /"}}},
	}
	spec := func(vols ...corev1.Volume) corev1.PodSpec { return corev1.PodSpec{Volumes: vols} }
	secretVol := func(name, secret string, items ...corev1.KeyToPath) corev1.Volume {
		return corev1.Volume{Name: name, VolumeSource: corev1.VolumeSource{Secret: &corev1.SecretVolumeSource{SecretName: secret, Items: items}}}
	}
	cases := map[string]struct {
		reason    string
		spec      corev1.PodSpec
		mounts    []corev1.VolumeMount
		want      map[string]string // files under the pod's directory
		wantMount []string
		wantErr   string
	}{
		"SecretUnderEtc": {
			reason: "Every key of a mounted Secret is a file at the mount path, under the pod's /etc.",
			spec:   spec(secretVol("server", "root-server")),
			mounts: []corev1.VolumeMount{{Name: "server", MountPath: "/etc/kcp/tls/server"}},
			want:   map[string]string{"etc/kcp/tls/server/tls.crt": "CRT", "etc/kcp/tls/server/tls.key": "KEY"},
		},
		"SecretItems": {
			reason: "A Secret volume with items writes only those keys, at their paths.",
			spec:   spec(secretVol("kc", "kubeconfig", corev1.KeyToPath{Key: "kubeconfig", Path: "config"})),
			mounts: []corev1.VolumeMount{{Name: "kc", MountPath: "/etc/kcp/kc"}},
			want:   map[string]string{"etc/kcp/kc/config": "KC"},
		},
		"ConfigMap": {
			reason: "A ConfigMap's data keys are files too.",
			spec:   spec(corev1.Volume{Name: "c", VolumeSource: corev1.VolumeSource{ConfigMap: &corev1.ConfigMapVolumeSource{LocalObjectReference: corev1.LocalObjectReference{Name: "cfg"}}}}),
			mounts: []corev1.VolumeMount{{Name: "c", MountPath: "/etc/kcp-front-proxy/config"}},
			want:   map[string]string{"etc/kcp-front-proxy/config/path-mapping.yaml": "- path: /"},
		},
		"DataVolumeOutsideEtc": {
			reason:    "A volume that is not a Secret or ConfigMap, mounted outside /etc (etcd's data), gets an empty directory of its own.",
			spec:      spec(corev1.Volume{Name: "data", VolumeSource: corev1.VolumeSource{EmptyDir: &corev1.EmptyDirVolumeSource{}}}),
			mounts:    []corev1.VolumeMount{{Name: "data", MountPath: "/var/lib/etcd"}},
			want:      map[string]string{},
			wantMount: []string{"/var/lib/etcd"},
		},
		"SecretOutsideEtc": {
			reason:  "Files outside /etc cannot be provided without touching this machine: say so.",
			spec:    spec(secretVol("server", "root-server")),
			mounts:  []corev1.VolumeMount{{Name: "server", MountPath: "/tls"}},
			wantErr: "outside /etc",
		},
		"MissingSecret": {
			reason:  "A Secret that does not exist (yet) is an error naming it, not an empty directory.",
			spec:    spec(secretVol("server", "absent")),
			mounts:  []corev1.VolumeMount{{Name: "server", MountPath: "/etc/x"}},
			wantErr: "secret absent not found",
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			p := &Pod{Name: "p", dir: t.TempDir()}
			err := p.writeVolumes(t.Context(), r, "kcp", tc.spec, corev1.Container{VolumeMounts: tc.mounts})
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("%s\nwriteVolumes: got error %v, want one containing %q", tc.reason, err, tc.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatalf("%s\nwriteVolumes: %v", tc.reason, err)
			}
			got := map[string]string{}
			_ = filepath.WalkDir(filepath.Join(p.dir, "etc"), func(path string, d os.DirEntry, err error) error {
				if err == nil && !d.IsDir() {
					b, _ := os.ReadFile(path)
					rel, _ := filepath.Rel(p.dir, path)
					got[rel] = string(b)
				}
				return nil
			})
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("%s\nfiles: -want, +got:\n%s", tc.reason, diff)
			}
			if diff := cmp.Diff(tc.wantMount, p.mounts); diff != "" {
				t.Errorf("%s\nmounts outside /etc: -want, +got:\n%s", tc.reason, diff)
			}
		})
	}
}

func TestServiceNames(t *testing.T) {
	svc := func(name string, selector map[string]string) corev1.Service {
		return corev1.Service{ObjectMeta: metav1.ObjectMeta{Name: name}, Spec: corev1.ServiceSpec{Selector: selector}}
	}
	c := &Cluster{opts: Options{ClusterDomain: "cluster.local", Reader: fakeReader{services: corev1.ServiceList{Items: []corev1.Service{
		svc("root-kcp", map[string]string{"app.kubernetes.io/component": "rootshard", "app.kubernetes.io/instance": "root"}),
		svc("root-proxy", map[string]string{"app.kubernetes.io/component": "rootshard-proxy", "app.kubernetes.io/instance": "root"}),
		svc("headless-without-selector", nil),
	}}}}}
	services, err := c.selecting(t.Context(), c.opts.Reader, "kcp", map[string]string{"app.kubernetes.io/component": "rootshard", "app.kubernetes.io/instance": "root", "extra": "x"})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, s := range services {
		got = append(got, c.serviceDNS(s.Name, "kcp")...)
	}
	want := []string{"root-kcp.kcp.svc.cluster.local", "root-kcp.kcp.svc", "root-kcp.kcp"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("the root shard's pod is known by exactly the Service that selects it (a Service without a selector selects nothing): -want, +got:\n%s", diff)
	}
}

func TestTmpfsAncestors(t *testing.T) {
	dir := t.TempDir()
	if err := os.MkdirAll(filepath.Join(dir, "var", "log"), 0o755); err != nil {
		t.Fatal(err)
	}
	cases := map[string]struct {
		reason string
		mounts []string
		want   []string
	}{
		"Exists": {
			reason: "A mount path that exists needs no tmpfs.",
			mounts: []string{filepath.Join(dir, "var", "log")},
		},
		"Parent": {
			reason: "A missing path whose parent exists gets a tmpfs on its parent.",
			mounts: []string{filepath.Join(dir, "var", "log", "kcp")},
			want:   []string{filepath.Join(dir, "var", "log")},
		},
		"Deeper": {
			reason: "A path missing two levels deep gets one tmpfs on the nearest ancestor that exists.",
			mounts: []string{filepath.Join(dir, "var", "log", "kcp", "audit")},
			want:   []string{filepath.Join(dir, "var", "log")},
		},
		"Nested": {
			reason: "A tmpfs under another would hide what was made in the first: only the shallowest.",
			mounts: []string{filepath.Join(dir, "var", "log", "kcp", "audit"), filepath.Join(dir, "var", "data", "x")},
			want:   []string{filepath.Join(dir, "var")},
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			if diff := cmp.Diff(tc.want, tmpfsAncestors(tc.mounts)); diff != "" {
				t.Errorf("%s\ntmpfsAncestors(): -want, +got:\n%s", tc.reason, diff)
			}
		})
	}
}

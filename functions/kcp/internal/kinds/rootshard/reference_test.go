package rootshard

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/utils/ptr"

	"github.com/configuration-kcp/configuration-kcp/apis/v1alpha1"
	"github.com/configuration-kcp/configuration-kcp/functions/kcp/internal/testworld"
)

func TestReference(t *testing.T) {
	labels := map[string]string{"operator.kcp.io/rootshard": "root", "kcp.crossplane.io/reference": "RootShard"}
	cases := map[string]struct {
		reason string
		rs     *v1alpha1.RootShard
		want   map[string]string // data, with "image" filled from the Deployment
	}{
		"Basic": {
			reason: "A RootShard publishes its Service URL, its server and client CAs, its public URL and the image it runs.",
			rs:     basic(),
			want: map[string]string{
				"kind": "RootShard", "name": "root", "namespace": "kcp",
				"url":    "https://root-kcp.kcp.svc.cluster.local:6443",
				"ca.crt": "PEM(root-server-ca)", "client-ca.crt": "PEM(root-client-ca)",
				"external-url": "https://api.example.com:6443", "root-ca-secret": "root-ca",
			},
		},
		"ShardBaseURL": {
			reason: "spec.shardBaseURL is where other components reach it, so that is what it publishes (status.baseURL).",
			rs:     basic(func(rs *v1alpha1.RootShard) { rs.Spec.ShardBaseURL = "https://root.internal.example.com:6443" }),
			want: map[string]string{
				"kind": "RootShard", "name": "root", "namespace": "kcp",
				"url":    "https://root.internal.example.com:6443",
				"ca.crt": "PEM(root-server-ca)", "client-ca.crt": "PEM(root-client-ca)",
				"external-url": "https://api.example.com:6443", "root-ca-secret": "root-ca",
			},
		},
		"CABundle": {
			reason: "A user's CA bundle is for kcp's own clients, not published: the server CA verifies the shard.",
			rs:     basic(func(rs *v1alpha1.RootShard) { rs.Spec.CABundleSecretRef = &corev1.LocalObjectReference{Name: "bundle"} }),
			want: map[string]string{
				"kind": "RootShard", "name": "root", "namespace": "kcp",
				"url":    "https://root-kcp.kcp.svc.cluster.local:6443",
				"ca.crt": "PEM(root-server-ca)", "client-ca.crt": "PEM(root-client-ca)",
				"external-url": "https://api.example.com:6443", "root-ca-secret": "root-ca",
			},
		},
		"WhatAShardReads": {
			reason: "What a Shard or FrontProxy naming the RootShard by this Secret reads of it is published too: its private address, root CA Secret, cluster domain, additional client CAs and cache server.",
			rs: basic(func(rs *v1alpha1.RootShard) {
				rs.Spec.External.PrivateHostname = "root.internal"
				rs.Spec.External.PrivatePort = ptr.To[uint32](7443)
				rs.Spec.Certificates = v1alpha1.Certificates{CASecretRef: &corev1.LocalObjectReference{Name: "my-ca"}}
				rs.Spec.ClusterDomain = "cluster.example"
				rs.Spec.ClientCABundleRef = &corev1.LocalObjectReference{Name: "extra-clients"}
				rs.Spec.Cache.Ref = &corev1.LocalObjectReference{Name: "cache"}
			}),
			want: map[string]string{
				"kind": "RootShard", "name": "root", "namespace": "kcp",
				"url":    "https://root-kcp.kcp.svc.cluster.example:6443",
				"ca.crt": "PEM(root-server-ca)", "client-ca.crt": "PEM(root-client-ca)",
				"external-url": "https://api.example.com:6443", "external-admin-url": "https://root.internal:7443",
				"root-ca-secret": "my-ca", "cluster-domain": "cluster.example",
				"client-ca-bundle-secret": "extra-clients", "cache-server": "cache",
			},
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			r, _ := converge(tc.rs, func(w *testworld.World) {
				w.Secret("bundle", "my-ca", "extra-clients", "cache-kubeconfig", "cache-ca", "cache-client-certificate")
			})
			o, ok := r.Desired.Get("secret-reference")
			if !ok || o.Resource == nil {
				t.Fatalf("%s\nsecret-reference is not built; desired: %v", tc.reason, keys(&r.Desired))
			}
			s := o.Resource.(*corev1.Secret)
			got := map[string]string{}
			for k, v := range s.Data {
				got[k] = string(v)
			}
			tc.want["image"] = deployment(t, r, "deployment-kcp").Spec.Template.Spec.Containers[0].Image
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("%s\ndata: -want, +got:\n%s", tc.reason, diff)
			}
			if got := r.Status.Image; got != tc.want["image"] {
				t.Errorf("%s\nimage %q is not status.image %q", tc.reason, tc.want["image"], got)
			}
			if diff := cmp.Diff(labels, s.Labels); diff != "" {
				t.Errorf("%s\nlabels: -want, +got:\n%s", tc.reason, diff)
			}
			if s.Name != "root-reference" {
				t.Errorf("%s\nname = %q, want root-reference", tc.reason, s.Name)
			}
		})
	}
}

func TestReferenceNotBeforeIssued(t *testing.T) {
	// The CAs exist, but the RootShard's other certificates are still being issued: a new
	// reference waits for them, composed with the workloads.
	r := composeOK(basic(), testworld.New().RootCAs().State())
	if r.Desired.Has("secret-reference") {
		t.Errorf("the reference must not be composed before the RootShard's certificates are issued")
	}
}

package scenarios

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
	"sort"
	"strings"
	"sync"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/tools/clientcmd"
)

// restResources are what a rest window watches for changes: every XR kind and everything an
// XR composes or reads, so that a change at rest can be named.
var restResources = func() []schema.GroupVersionResource {
	var out []schema.GroupVersionResource
	for _, r := range xrResources {
		out = append(out, schema.GroupVersionResource{Group: "kcp.crossplane.io", Version: "v1alpha1", Resource: r})
	}
	for _, r := range watchedResources {
		if r.Group != "kcp.crossplane.io" {
			out = append(out, r)
		}
	}
	return append(out,
		schema.GroupVersionResource{Group: "policy", Version: "v1", Resource: "poddisruptionbudgets"},
		schema.GroupVersionResource{Version: "v1", Resource: "serviceaccounts"},
		schema.GroupVersionResource{Group: "rbac.authorization.k8s.io", Version: "v1", Resource: "roles"},
		schema.GroupVersionResource{Group: "rbac.authorization.k8s.io", Version: "v1", Resource: "rolebindings"},
		schema.GroupVersionResource{Group: "coordination.k8s.io", Version: "v1", Resource: "leases"},
		// What a shared installation composes to act inside kcp (provider-kubernetes').
		schema.GroupVersionResource{Group: "kubernetes.m.crossplane.io", Version: "v1alpha1", Resource: "objects"},
		schema.GroupVersionResource{Group: "kubernetes.m.crossplane.io", Version: "v1alpha1", Resource: "providerconfigs"},
		// Not Crossplane's: what Kubernetes and kwok change in the namespaces, for the record.
		schema.GroupVersionResource{Version: "v1", Resource: "pods"},
		schema.GroupVersionResource{Group: "discovery.k8s.io", Version: "v1", Resource: "endpointslices"},
		schema.GroupVersionResource{Group: "apps", Version: "v1", Resource: "statefulsets"},
	)
}()

// changeWatch records every change, after it starts, of restResources in a set of
// namespaces: at rest there should be none, and each one it records names the object, the
// manager that wrote it and the fields that changed.
type changeWatch struct {
	cancel context.CancelFunc
	wg     sync.WaitGroup

	mu      sync.Mutex
	last    map[string]map[string]string
	changes []string
	byKind  map[string]int
	// ours counts the changes of XRs and of what Crossplane composed for them.
	ours int
}

func watchChanges(ctx context.Context, e *env, namespaces ...string) (*changeWatch, error) {
	client, err := dynamicClient(e)
	if err != nil {
		return nil, err
	}
	ctx, cancel := context.WithCancel(ctx)
	w := &changeWatch{cancel: cancel, last: map[string]map[string]string{}, byKind: map[string]int{}}
	for _, ns := range namespaces {
		for _, gvr := range restResources {
			list, err := client.Resource(gvr).Namespace(ns).List(ctx, metav1.ListOptions{})
			if err != nil {
				continue // Not served here (a kind of another stack).
			}
			for i := range list.Items {
				w.last[gvr.Resource+"/"+ns+"/"+list.Items[i].GetName()] = flatten(&list.Items[i])
			}
			wi, err := client.Resource(gvr).Namespace(ns).Watch(ctx, metav1.ListOptions{ResourceVersion: list.GetResourceVersion()})
			if err != nil {
				cancel()
				return nil, fmt.Errorf("watch %s in %s: %w", gvr.Resource, ns, err)
			}
			consumeEvents(ctx, &w.wg, wi, func(ev watch.Event) {
				if u, ok := ev.Object.(*unstructured.Unstructured); ok {
					w.record(gvr, ns, string(ev.Type), u)
				}
			})
		}
	}
	return w, nil
}

func (w *changeWatch) record(gvr schema.GroupVersionResource, ns, event string, u *unstructured.Unstructured) {
	key := gvr.Resource + "/" + ns + "/" + u.GetName()
	fields := flatten(u)
	w.mu.Lock()
	defer w.mu.Unlock()
	var managers []string
	for _, m := range u.GetManagedFields() {
		if m.Time != nil && time.Since(m.Time.Time) < time.Minute {
			managers = append(managers, m.Manager+"/"+string(m.Operation)+"/"+m.Subresource)
		}
	}
	w.changes = append(w.changes, fmt.Sprintf("%s %s %s by [%s]: %s", time.Now().Format("15:04:05.000"), event, key,
		strings.Join(managers, " "), changedFields(w.last[key], fields)))
	w.last[key] = fields
	w.byKind[gvr.Resource]++
	if gvr.Group == "kcp.crossplane.io" || u.GetLabels()["crossplane.io/composite"] != "" {
		w.ours++
	}
}

// stop ends the watch and returns the changes it saw and how many of them were of XRs or of
// objects Crossplane composed.
func (w *changeWatch) stop() ([]string, int) {
	w.cancel()
	w.wg.Wait()
	w.mu.Lock()
	defer w.mu.Unlock()
	sort.Strings(w.changes)
	return w.changes, w.ours
}

// dynamicClient is a client of the stack's API server for any resource.
func dynamicClient(e *env) (*dynamic.DynamicClient, error) {
	cfg, err := clientcmd.BuildConfigFromFlags("", e.Kubeconfig)
	if err != nil {
		return nil, err
	}
	cfg.Proxy = func(*http.Request) (*url.URL, error) { return nil, nil } // Everything is local.
	return dynamic.NewForConfig(cfg)
}

// consumeEvents hands every event of wi to fn until ctx ends or the watch closes, in a
// goroutine wg waits for.
func consumeEvents(ctx context.Context, wg *sync.WaitGroup, wi watch.Interface, fn func(watch.Event)) {
	wg.Add(1)
	go func() {
		defer wg.Done()
		defer wi.Stop()
		for {
			select {
			case <-ctx.Done():
				return
			case ev, ok := <-wi.ResultChan():
				if !ok {
					return
				}
				fn(ev)
			}
		}
	}()
}

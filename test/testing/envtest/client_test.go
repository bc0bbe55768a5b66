// A representative subset of controller-runtime's pkg/client behaviour
// (the shapes of its own client_test.go, written anew): typed and
// unstructured CRUD with their errors, the patch types, server-side apply,
// the status and scale subresources, list options (namespaces, labels,
// fields, pages, metadata-only), watches through a WithWatch client and
// through the cache's informers, DeleteAllOf, foreground and orphan
// deletion, and service-account tokens (TokenRequest, and one minted with
// envtest's sa-signer.key). Each runs against whatever envtest started: it
// is meant to pass on kube-apiserver and on apiary alike.
package envtest_test

import (
	"context"
	"crypto/ecdsa"
	"crypto/rand"
	"crypto/sha256"
	"crypto/x509"
	"encoding/base64"
	"encoding/json"
	"encoding/pem"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	authenticationv1 "k8s.io/api/authentication/v1"
	autoscalingv1 "k8s.io/api/autoscaling/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/rest"
	toolscache "k8s.io/client-go/tools/cache"
	"sigs.k8s.io/controller-runtime/pkg/cache"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/envtest"
)

func must(t *testing.T, what string, err error) {
	t.Helper()
	if err != nil {
		t.Fatalf("%s: %v", what, err)
	}
}

func eventually(t *testing.T, what string, timeout time.Duration, cond func() (bool, error)) {
	t.Helper()
	deadline := time.Now().Add(timeout)
	for {
		ok, err := cond()
		if err != nil {
			t.Fatalf("%s: %v", what, err)
		}
		if ok {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s: not within %v", what, timeout)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

func deployment(ns, name string, replicas int32) *appsv1.Deployment {
	labels := map[string]string{"app": name}
	return &appsv1.Deployment{
		ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name},
		Spec: appsv1.DeploymentSpec{
			Replicas: &replicas,
			Selector: &metav1.LabelSelector{MatchLabels: labels},
			Template: corev1.PodTemplateSpec{
				ObjectMeta: metav1.ObjectMeta{Labels: labels},
				Spec:       corev1.PodSpec{Containers: []corev1.Container{{Name: "main", Image: "busybox"}}},
			},
		},
	}
}

// runClientSuite runs the subset in namespace ns (created here).
func runClientSuite(t *testing.T, env *envtest.Environment, cfg *rest.Config, c client.Client, controllerWait time.Duration) {
	ctx := context.Background()
	const ns = "client-suite"
	must(t, "create namespace", c.Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}}))

	t.Run("typed CRUD with AlreadyExists, Conflict and NotFound", func(t *testing.T) {
		d := deployment(ns, "crud", 1)
		must(t, "create", c.Create(ctx, d))
		if d.UID == "" || d.ResourceVersion == "" || d.Generation != 1 {
			t.Fatalf("create did not fill metadata: %+v", d.ObjectMeta)
		}
		if err := c.Create(ctx, deployment(ns, "crud", 1)); !apierrors.IsAlreadyExists(err) {
			t.Fatalf("second create: want AlreadyExists, got %v", err)
		}
		got := &appsv1.Deployment{}
		must(t, "get", c.Get(ctx, client.ObjectKeyFromObject(d), got))
		if got.Spec.Template.Spec.Containers[0].TerminationMessagePath != "/dev/termination-log" || got.Spec.Strategy.Type != appsv1.RollingUpdateDeploymentStrategyType {
			t.Fatalf("defaults not applied: %+v", got.Spec)
		}
		stale := got.DeepCopy()
		replicas := int32(3)
		got.Spec.Replicas = &replicas
		must(t, "update", c.Update(ctx, got))
		if got.Generation != 2 {
			t.Fatalf("update: generation %d, want 2", got.Generation)
		}
		stale.Spec.Replicas = &replicas
		if err := c.Update(ctx, stale); !apierrors.IsConflict(err) {
			t.Fatalf("stale update: want Conflict, got %v", err)
		}
		must(t, "delete", c.Delete(ctx, got))
		if err := c.Get(ctx, client.ObjectKeyFromObject(d), &appsv1.Deployment{}); !apierrors.IsNotFound(err) {
			t.Fatalf("get after delete: want NotFound, got %v", err)
		}
		if err := c.Delete(ctx, got); !apierrors.IsNotFound(err) {
			t.Fatalf("second delete: want NotFound, got %v", err)
		}
	})

	t.Run("unstructured CRUD and validation errors", func(t *testing.T) {
		u := &unstructured.Unstructured{}
		u.SetGroupVersionKind(schema.GroupVersionKind{Version: "v1", Kind: "ConfigMap"})
		u.SetNamespace(ns)
		u.SetName("unstructured")
		u.Object["data"] = map[string]interface{}{"a": "1"}
		must(t, "create", c.Create(ctx, u))
		got := &unstructured.Unstructured{}
		got.SetGroupVersionKind(u.GroupVersionKind())
		must(t, "get", c.Get(ctx, client.ObjectKeyFromObject(u), got))
		if v, _, _ := unstructured.NestedString(got.Object, "data", "a"); v != "1" {
			t.Fatalf("data.a = %q", v)
		}
		bad := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "Not_A_Name"}}
		if err := c.Create(ctx, bad); !apierrors.IsInvalid(err) {
			t.Fatalf("invalid name: want Invalid, got %v", err)
		}
		w := &unstructured.Unstructured{}
		w.SetGroupVersionKind(schema.GroupVersionKind{Group: "example.com", Version: "v1", Kind: "Widget"})
		w.SetNamespace(ns)
		w.SetName("too-small")
		w.Object["spec"] = map[string]interface{}{"size": int64(0)}
		if err := c.Create(ctx, w); !apierrors.IsInvalid(err) || !strings.Contains(err.Error(), "spec.size") {
			t.Fatalf("size 0 against minimum 1: want Invalid naming spec.size, got %v", err)
		}
	})

	t.Run("patch types: merge, strategic merge, JSON patch, optimistic lock", func(t *testing.T) {
		d := deployment(ns, "patched", 1)
		must(t, "create", c.Create(ctx, d))
		base := d.DeepCopy()
		d.Labels = map[string]string{"merge": "yes"}
		must(t, "merge patch", c.Patch(ctx, d, client.MergeFrom(base)))
		base = d.DeepCopy()
		d.Spec.Template.Spec.Containers = append(d.Spec.Template.Spec.Containers, corev1.Container{Name: "sidecar", Image: "busybox"})
		must(t, "strategic merge patch", c.Patch(ctx, d, client.StrategicMergeFrom(base)))
		if len(d.Spec.Template.Spec.Containers) != 2 {
			t.Fatalf("strategic merge: %d containers", len(d.Spec.Template.Spec.Containers))
		}
		must(t, "json patch", c.Patch(ctx, d, client.RawPatch(types.JSONPatchType, []byte(`[{"op":"add","path":"/metadata/annotations","value":{"json":"patch"}}]`))))
		if d.Annotations["json"] != "patch" || d.Labels["merge"] != "yes" {
			t.Fatalf("after patches: labels %v annotations %v", d.Labels, d.Annotations)
		}
		stale := d.DeepCopy()
		stale.ResourceVersion = base.ResourceVersion
		changed := stale.DeepCopy()
		changed.Labels["late"] = "1"
		if err := c.Patch(ctx, changed, client.MergeFromWithOptions(stale, client.MergeFromWithOptimisticLock{})); !apierrors.IsConflict(err) {
			t.Fatalf("optimistic lock on a stale resourceVersion: want Conflict, got %v", err)
		}
		if err := c.Patch(ctx, d, client.RawPatch(types.JSONPatchType, []byte(`[{"op":"test","path":"/metadata/labels/merge","value":"no"}]`))); err == nil || apierrors.IsNotFound(err) {
			t.Fatalf("failing JSON patch test op: want an error, got %v", err)
		}
	})

	t.Run("server-side apply: field owners, conflicts, force", func(t *testing.T) {
		apply := func(owner string, data map[string]interface{}, force bool) error {
			u := &unstructured.Unstructured{Object: map[string]interface{}{
				"apiVersion": "v1", "kind": "ConfigMap",
				"metadata": map[string]interface{}{"name": "applied", "namespace": ns},
				"data":     data,
			}}
			opts := []client.PatchOption{client.FieldOwner(owner)}
			if force {
				opts = append(opts, client.ForceOwnership)
			}
			return c.Patch(ctx, u, client.Apply, opts...)
		}
		must(t, "first apply", apply("alice", map[string]interface{}{"a": "1"}, false))
		must(t, "second owner, other field", apply("bob", map[string]interface{}{"b": "2"}, false))
		err := apply("bob", map[string]interface{}{"a": "changed"}, false)
		if !apierrors.IsConflict(err) || !strings.Contains(err.Error(), "alice") {
			t.Fatalf("taking alice's field: want a Conflict naming alice, got %v", err)
		}
		must(t, "forced", apply("bob", map[string]interface{}{"a": "changed", "b": "2"}, true))
		got := &corev1.ConfigMap{}
		must(t, "get", c.Get(ctx, types.NamespacedName{Namespace: ns, Name: "applied"}, got))
		if got.Data["a"] != "changed" || got.Data["b"] != "2" {
			t.Fatalf("data %v", got.Data)
		}
		managers := map[string]bool{}
		for _, m := range got.ManagedFields {
			managers[m.Manager] = true
		}
		if !managers["bob"] {
			t.Fatalf("managedFields lack bob: %+v", got.ManagedFields)
		}
	})

	t.Run("status and scale subresources", func(t *testing.T) {
		w := &unstructured.Unstructured{}
		w.SetGroupVersionKind(schema.GroupVersionKind{Group: "example.com", Version: "v1", Kind: "Widget"})
		w.SetNamespace(ns)
		w.SetName("with-status")
		w.Object["spec"] = map[string]interface{}{"size": int64(1)}
		must(t, "create", c.Create(ctx, w))
		w.Object["status"] = map[string]interface{}{"ready": true}
		must(t, "update (status ignored)", c.Update(ctx, w))
		if _, found, _ := unstructured.NestedBool(w.Object, "status", "ready"); found {
			t.Fatalf("the main resource took status: %v", w.Object["status"])
		}
		w.Object["status"] = map[string]interface{}{"ready": true}
		w.Object["spec"] = map[string]interface{}{"size": int64(5)}
		must(t, "status update", c.Status().Update(ctx, w))
		if ready, _, _ := unstructured.NestedBool(w.Object, "status", "ready"); !ready {
			t.Fatalf("status not stored: %v", w.Object)
		}
		if size, _, _ := unstructured.NestedInt64(w.Object, "spec", "size"); size != 1 {
			t.Fatalf("status update changed spec.size to %d", size)
		}

		d := deployment(ns, "scaled", 1)
		must(t, "create deployment", c.Create(ctx, d))
		scale := &autoscalingv1.Scale{}
		must(t, "get scale", c.SubResource("scale").Get(ctx, d, scale))
		if scale.Spec.Replicas != 1 || scale.Status.Selector != "app=scaled" {
			t.Fatalf("scale %+v", scale)
		}
		scale.Spec.Replicas = 4
		must(t, "update scale", c.SubResource("scale").Update(ctx, d, client.WithSubResourceBody(scale)))
		must(t, "get", c.Get(ctx, client.ObjectKeyFromObject(d), d))
		if *d.Spec.Replicas != 4 {
			t.Fatalf("replicas %d after scaling to 4", *d.Spec.Replicas)
		}
	})

	t.Run("list options: namespace, labels, fields, pages, metadata only", func(t *testing.T) {
		for i := 0; i < 5; i++ {
			cm := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: fmt.Sprintf("listed-%d", i), Labels: map[string]string{"listed": "yes", "parity": fmt.Sprint(i % 2)}}}
			must(t, "create", c.Create(ctx, cm))
		}
		list := &corev1.ConfigMapList{}
		must(t, "list by label", c.List(ctx, list, client.InNamespace(ns), client.MatchingLabels{"listed": "yes", "parity": "0"}))
		if len(list.Items) != 3 {
			t.Fatalf("parity=0: %d items", len(list.Items))
		}
		must(t, "list by field", c.List(ctx, list, client.InNamespace(ns), client.MatchingFields{"metadata.name": "listed-3"}))
		if len(list.Items) != 1 || list.Items[0].Name != "listed-3" {
			t.Fatalf("by field: %v", list.Items)
		}
		var names []string
		cont := ""
		for pages := 0; ; pages++ {
			page := &corev1.ConfigMapList{}
			must(t, "page", c.List(ctx, page, client.InNamespace(ns), client.MatchingLabels{"listed": "yes"}, client.Limit(2), client.Continue(cont)))
			for _, item := range page.Items {
				names = append(names, item.Name)
			}
			cont = page.Continue
			if cont == "" {
				if pages != 2 {
					t.Fatalf("%d pages of 2 for 5 items", pages+1)
				}
				break
			}
		}
		if strings.Join(names, ",") != "listed-0,listed-1,listed-2,listed-3,listed-4" {
			t.Fatalf("pages gave %v", names)
		}
		meta := &metav1.PartialObjectMetadataList{}
		meta.SetGroupVersionKind(schema.GroupVersionKind{Version: "v1", Kind: "ConfigMapList"})
		must(t, "metadata-only list", c.List(ctx, meta, client.InNamespace(ns), client.MatchingLabels{"listed": "yes"}))
		if len(meta.Items) != 5 || meta.Items[0].Labels["listed"] != "yes" {
			t.Fatalf("metadata list: %+v", meta.Items)
		}
		ulist := &unstructured.UnstructuredList{}
		ulist.SetGroupVersionKind(schema.GroupVersionKind{Version: "v1", Kind: "ConfigMapList"})
		must(t, "unstructured list", c.List(ctx, ulist, client.InNamespace(ns), client.MatchingLabels{"parity": "1"}))
		if len(ulist.Items) != 2 {
			t.Fatalf("unstructured parity=1: %d", len(ulist.Items))
		}
		must(t, "delete all of", c.DeleteAllOf(ctx, &corev1.ConfigMap{}, client.InNamespace(ns), client.MatchingLabels{"parity": "1"}))
		must(t, "list after", c.List(ctx, list, client.InNamespace(ns), client.MatchingLabels{"listed": "yes"}))
		if len(list.Items) != 3 {
			t.Fatalf("after DeleteAllOf parity=1: %d left, want 3", len(list.Items))
		}
	})

	t.Run("watch through a WithWatch client", func(t *testing.T) {
		wc, err := client.NewWithWatch(cfg, client.Options{})
		must(t, "client", err)
		w, err := wc.Watch(ctx, &corev1.ConfigMapList{}, client.InNamespace(ns), client.MatchingLabels{"watched": "yes"})
		must(t, "watch", err)
		defer w.Stop()
		cm := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "watched", Labels: map[string]string{"watched": "yes"}}}
		must(t, "create", c.Create(ctx, cm))
		must(t, "delete", c.Delete(ctx, cm))
		var seen []watch.EventType
		timeout := time.After(20 * time.Second)
		for len(seen) < 2 {
			select {
			case ev, ok := <-w.ResultChan():
				if !ok {
					t.Fatalf("watch closed after %v", seen)
				}
				if obj, isCM := ev.Object.(*corev1.ConfigMap); !isCM || obj.Name != "watched" {
					t.Fatalf("unexpected event %v %T", ev.Type, ev.Object)
				}
				seen = append(seen, ev.Type)
			case <-timeout:
				t.Fatalf("events seen: %v", seen)
			}
		}
		if seen[0] != watch.Added || seen[1] != watch.Deleted {
			t.Fatalf("events %v, want ADDED then DELETED", seen)
		}
	})

	t.Run("cache and informers: events, cached reads, a label-filtered cache", func(t *testing.T) {
		cctx, cancel := context.WithCancel(ctx)
		defer cancel()
		informers, err := cache.New(cfg, cache.Options{DefaultNamespaces: map[string]cache.Config{ns: {}}})
		must(t, "cache", err)
		inf, err := informers.GetInformer(cctx, &corev1.ConfigMap{})
		must(t, "informer", err)
		var mu sync.Mutex
		events := map[string][]string{}
		record := func(kind string) func(obj interface{}) {
			return func(obj interface{}) {
				if cm, ok := obj.(*corev1.ConfigMap); ok {
					mu.Lock()
					events[cm.Name] = append(events[cm.Name], kind)
					mu.Unlock()
				}
			}
		}
		_, err = inf.AddEventHandler(toolscache.ResourceEventHandlerFuncs{
			AddFunc:    record("add"),
			UpdateFunc: func(_, obj interface{}) { record("update")(obj) },
			DeleteFunc: func(obj interface{}) {
				if tomb, ok := obj.(toolscache.DeletedFinalStateUnknown); ok {
					obj = tomb.Obj
				}
				record("delete")(obj)
			},
		})
		must(t, "handler", err)
		go func() { _ = informers.Start(cctx) }()
		if !informers.WaitForCacheSync(cctx) {
			t.Fatal("cache did not sync")
		}
		cm := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "informed"}, Data: map[string]string{"v": "1"}}
		must(t, "create", c.Create(ctx, cm))
		cm.Data["v"] = "2"
		must(t, "update", c.Update(ctx, cm))
		eventually(t, "the cache serves the update", 20*time.Second, func() (bool, error) {
			cached := &corev1.ConfigMap{}
			if err := informers.Get(ctx, client.ObjectKeyFromObject(cm), cached); err != nil {
				if apierrors.IsNotFound(err) {
					return false, nil
				}
				return false, err
			}
			return cached.Data["v"] == "2", nil
		})
		must(t, "delete", c.Delete(ctx, cm))
		eventually(t, "add, update, delete events", 20*time.Second, func() (bool, error) {
			mu.Lock()
			defer mu.Unlock()
			return strings.Join(events["informed"], ",") == "add,update,delete", nil
		})
		cached := &corev1.ConfigMapList{}
		must(t, "cached list", informers.List(ctx, cached, client.InNamespace(ns), client.MatchingLabels{"listed": "yes"}))
		if len(cached.Items) != 3 {
			t.Fatalf("cached list by label: %d items, want 3", len(cached.Items))
		}
	})

	t.Run("foreground and orphan deletion", func(t *testing.T) {
		owner := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "fg-owner"}}
		must(t, "create owner", c.Create(ctx, owner))
		block := true
		dep := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "fg-dependent", OwnerReferences: []metav1.OwnerReference{{
			APIVersion: "v1", Kind: "ConfigMap", Name: owner.Name, UID: owner.UID, BlockOwnerDeletion: &block,
		}}}}
		must(t, "create dependent", c.Create(ctx, dep))
		must(t, "delete owner in the foreground", c.Delete(ctx, owner, client.PropagationPolicy(metav1.DeletePropagationForeground)))
		waitGone(t, c, client.ObjectKeyFromObject(dep), &corev1.ConfigMap{}, controllerWait)
		waitGone(t, c, client.ObjectKeyFromObject(owner), &corev1.ConfigMap{}, controllerWait)

		orphanOwner := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "orphan-owner"}}
		must(t, "create owner", c.Create(ctx, orphanOwner))
		orphan := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "orphan", OwnerReferences: []metav1.OwnerReference{{
			APIVersion: "v1", Kind: "ConfigMap", Name: orphanOwner.Name, UID: orphanOwner.UID,
		}}}}
		must(t, "create dependent", c.Create(ctx, orphan))
		must(t, "delete owner orphaning", c.Delete(ctx, orphanOwner, client.PropagationPolicy(metav1.DeletePropagationOrphan)))
		waitGone(t, c, client.ObjectKeyFromObject(orphanOwner), &corev1.ConfigMap{}, controllerWait)
		got := &corev1.ConfigMap{}
		must(t, "the orphan stays", c.Get(ctx, client.ObjectKeyFromObject(orphan), got))
		if len(got.OwnerReferences) != 0 {
			t.Fatalf("the orphan still names its owner: %+v", got.OwnerReferences)
		}
	})

	t.Run("service-account tokens: TokenRequest and one minted with envtest's sa-signer.key authenticate", func(t *testing.T) {
		sa := &corev1.ServiceAccount{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "robot"}}
		must(t, "create service account", c.Create(ctx, sa))
		expiry := int64(600)
		tr := &authenticationv1.TokenRequest{Spec: authenticationv1.TokenRequestSpec{ExpirationSeconds: &expiry}}
		must(t, "token request", c.SubResource("token").Create(ctx, sa, tr))
		issuer := env.ControlPlane.APIServer.SecureServing.URL("https", "/").String()
		minted := mintToken(t, filepath.Join(env.ControlPlane.APIServer.CertDir, "sa-signer.key"), issuer, sa)
		for name, token := range map[string]string{"TokenRequest": tr.Status.Token, "minted": minted} {
			tokenCfg := rest.AnonymousClientConfig(cfg)
			tokenCfg.BearerToken = token
			tc, err := client.New(tokenCfg, client.Options{})
			must(t, "client", err)
			review := &authenticationv1.SelfSubjectReview{}
			must(t, name+" token: self subject review", tc.Create(ctx, review))
			if review.Status.UserInfo.Username != "system:serviceaccount:"+ns+":robot" {
				t.Fatalf("%s token authenticates as %q", name, review.Status.UserInfo.Username)
			}
		}
	})
}

// mintToken signs a bound-style service-account token (ES256) with the key in keyFile, as a user of envtest can.
func mintToken(t *testing.T, keyFile, issuer string, sa *corev1.ServiceAccount) string {
	t.Helper()
	data, err := os.ReadFile(keyFile)
	must(t, "read signing key", err)
	block, _ := pem.Decode(data)
	if block == nil {
		t.Fatalf("%s: no PEM block", keyFile)
	}
	parsed, err := x509.ParsePKCS8PrivateKey(block.Bytes)
	if err != nil {
		parsed, err = x509.ParseECPrivateKey(block.Bytes)
	}
	must(t, "parse signing key", err)
	key, ok := parsed.(*ecdsa.PrivateKey)
	if !ok {
		t.Fatalf("signing key is %T, want ECDSA", parsed)
	}
	now := time.Now().Unix()
	enc := func(v interface{}) string {
		b, err := json.Marshal(v)
		must(t, "marshal", err)
		return base64.RawURLEncoding.EncodeToString(b)
	}
	signed := enc(map[string]string{"alg": "ES256", "typ": "JWT"}) + "." + enc(map[string]interface{}{
		"iss": issuer, "aud": []string{issuer}, "sub": "system:serviceaccount:" + sa.Namespace + ":" + sa.Name,
		"iat": now, "nbf": now, "exp": now + 600,
		"kubernetes.io": map[string]interface{}{"namespace": sa.Namespace, "serviceaccount": map[string]string{"name": sa.Name, "uid": string(sa.UID)}},
	})
	digest := sha256.Sum256([]byte(signed))
	r, s, err := ecdsa.Sign(rand.Reader, key, digest[:])
	must(t, "sign", err)
	sig := make([]byte, 64)
	r.FillBytes(sig[:32])
	s.FillBytes(sig[32:])
	return signed + "." + base64.RawURLEncoding.EncodeToString(sig)
}

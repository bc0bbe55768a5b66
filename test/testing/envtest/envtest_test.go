// controller-runtime's envtest with apiary as its kube-apiserver
// (TEST_ASSET_KUBE_APISERVER points at `apiary kube-apiserver`, etcd is the
// real one envtest starts): the environment starts, CRDs from a folder are
// installed, and the two tests envtest users cannot write against a bare
// kube-apiserver pass: a deleted namespace goes away, and an owner's
// dependents are garbage collected. Then the pkg/client subset of
// client_test.go. CONTROLLER_WAIT (a Go duration, default 30s) bounds the
// waits for controllers' work, so a run against a bare kube-apiserver shows
// those subtests failing quickly instead of hanging.
package envtest_test

import (
	"context"
	"os"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/envtest"
)

func waitGone(t *testing.T, c client.Client, key types.NamespacedName, obj client.Object, timeout time.Duration) {
	t.Helper()
	deadline := time.Now().Add(timeout)
	for {
		err := c.Get(context.Background(), key, obj)
		if apierrors.IsNotFound(err) {
			return
		}
		if err != nil {
			t.Fatalf("get %v: %v", key, err)
		}
		if time.Now().After(deadline) {
			t.Fatalf("%v still there after %v: %+v", key, timeout, obj)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

func TestEnvtestOnApiary(t *testing.T) {
	if os.Getenv("TEST_ASSET_KUBE_APISERVER") == "" {
		t.Skip("TEST_ASSET_KUBE_APISERVER not set")
	}
	controllerWait := 30 * time.Second
	if v := os.Getenv("CONTROLLER_WAIT"); v != "" {
		d, err := time.ParseDuration(v)
		if err != nil {
			t.Fatalf("CONTROLLER_WAIT: %v", err)
		}
		controllerWait = d
	}
	started := time.Now()
	env := &envtest.Environment{
		CRDDirectoryPaths:     []string{os.Getenv("CRD_DIR")},
		ErrorIfCRDPathMissing: true,
	}
	cfg, err := env.Start()
	if err != nil {
		t.Fatalf("start: %v", err)
	}
	t.Logf("environment started in %v", time.Since(started))
	defer func() {
		stopped := time.Now()
		if err := env.Stop(); err != nil {
			t.Errorf("stop: %v", err)
		}
		t.Logf("environment stopped in %v", time.Since(stopped))
	}()
	c, err := client.New(cfg, client.Options{})
	if err != nil {
		t.Fatalf("client: %v", err)
	}
	ctx := context.Background()

	t.Run("custom resources of the installed CRDs are served", func(t *testing.T) {
		w := &unstructured.Unstructured{}
		w.SetGroupVersionKind(schema.GroupVersionKind{Group: "example.com", Version: "v1", Kind: "Widget"})
		w.SetNamespace("default")
		w.SetName("w")
		w.Object["spec"] = map[string]interface{}{"size": int64(2)}
		if err := c.Create(ctx, w); err != nil {
			t.Fatalf("create widget: %v", err)
		}
	})

	t.Run("a deleted namespace goes away", func(t *testing.T) {
		ns := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "doomed"}}
		if err := c.Create(ctx, ns); err != nil {
			t.Fatalf("create namespace: %v", err)
		}
		cm := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "inside", Namespace: "doomed"}}
		if err := c.Create(ctx, cm); err != nil {
			t.Fatalf("create configmap: %v", err)
		}
		if err := c.Delete(ctx, ns); err != nil {
			t.Fatalf("delete namespace: %v", err)
		}
		waitGone(t, c, types.NamespacedName{Name: "doomed"}, &corev1.Namespace{}, controllerWait)
	})

	t.Run("an owner's dependents are collected", func(t *testing.T) {
		owner := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "owner", Namespace: "default"}}
		if err := c.Create(ctx, owner); err != nil {
			t.Fatalf("create owner: %v", err)
		}
		dep := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "dependent", Namespace: "default", OwnerReferences: []metav1.OwnerReference{{
			APIVersion: "v1", Kind: "ConfigMap", Name: owner.Name, UID: owner.UID,
		}}}}
		if err := c.Create(ctx, dep); err != nil {
			t.Fatalf("create dependent: %v", err)
		}
		if err := c.Delete(ctx, owner, client.PropagationPolicy(metav1.DeletePropagationBackground)); err != nil {
			t.Fatalf("delete owner: %v", err)
		}
		waitGone(t, c, types.NamespacedName{Name: "dependent", Namespace: "default"}, &corev1.ConfigMap{}, controllerWait)
	})

	t.Run("client", func(t *testing.T) { runClientSuite(t, env, cfg, c, controllerWait) })
}

// Command clientgo-crd-witness checks apiary's CustomResourceDefinitions with
// the official Go client, the way controller-runtime-based operators use
// them: it creates a CRD through the dynamic client, waits until the server
// reports it Established, runs a dynamic informer on its custom resources and
// checks that the informer sees a create, an update and a delete made through
// the dynamic client, in order. It prints "PASS" (exit 0) or "FAIL: why"
// (exit 1). The server must have namespace "witness".
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"strings"
	"sync"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/dynamic/dynamicinformer"
	"k8s.io/client-go/tools/cache"
	"k8s.io/client-go/tools/clientcmd"
)

var crdGVR = schema.GroupVersionResource{Group: "apiextensions.k8s.io", Version: "v1", Resource: "customresourcedefinitions"}
var gadgetGVR = schema.GroupVersionResource{Group: "witness.example.com", Version: "v1", Resource: "gadgets"}

func fail(format string, args ...any) {
	fmt.Printf("FAIL: "+format+"\n", args...)
	os.Exit(1)
}

func crd() *unstructured.Unstructured {
	return &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "apiextensions.k8s.io/v1",
		"kind":       "CustomResourceDefinition",
		"metadata":   map[string]any{"name": "gadgets.witness.example.com"},
		"spec": map[string]any{
			"group": "witness.example.com",
			"scope": "Namespaced",
			"names": map[string]any{"plural": "gadgets", "singular": "gadget", "kind": "Gadget", "listKind": "GadgetList"},
			"versions": []any{map[string]any{
				"name": "v1", "served": true, "storage": true,
				"schema": map[string]any{"openAPIV3Schema": map[string]any{
					"type": "object",
					"properties": map[string]any{"spec": map[string]any{
						"type":       "object",
						"properties": map[string]any{"color": map[string]any{"type": "string"}},
					}},
				}},
			}},
		},
	}}
}

func gadget(name, color string) *unstructured.Unstructured {
	return &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "witness.example.com/v1",
		"kind":       "Gadget",
		"metadata":   map[string]any{"name": name, "namespace": "witness"},
		"spec":       map[string]any{"color": color},
	}}
}

func main() {
	kubeconfig := flag.String("kubeconfig", "", "path to the kubeconfig")
	flag.Parse()
	config, err := clientcmd.BuildConfigFromFlags("", *kubeconfig)
	if err != nil {
		fail("kubeconfig: %v", err)
	}
	client, err := dynamic.NewForConfig(config)
	if err != nil {
		fail("client: %v", err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()

	if _, err := client.Resource(crdGVR).Create(ctx, crd(), metav1.CreateOptions{}); err != nil {
		fail("create CRD: %v", err)
	}
	established := false
	for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(50 * time.Millisecond) {
		got, err := client.Resource(crdGVR).Get(ctx, "gadgets.witness.example.com", metav1.GetOptions{})
		if err != nil {
			fail("get CRD: %v", err)
		}
		conditions, _, _ := unstructured.NestedSlice(got.Object, "status", "conditions")
		for _, c := range conditions {
			m, _ := c.(map[string]any)
			if m["type"] == "Established" && m["status"] == "True" {
				established = true
			}
		}
		if established {
			break
		}
	}
	if !established {
		fail("the CRD was not Established within 10s")
	}

	var mu sync.Mutex
	var seen []string
	record := func(s string) {
		mu.Lock()
		defer mu.Unlock()
		seen = append(seen, s)
	}
	color := func(obj any) string {
		u, ok := obj.(*unstructured.Unstructured)
		if !ok {
			return "?"
		}
		c, _, _ := unstructured.NestedString(u.Object, "spec", "color")
		return u.GetName() + "=" + c
	}
	factory := dynamicinformer.NewFilteredDynamicSharedInformerFactory(client, 0, "witness", nil)
	informer := factory.ForResource(gadgetGVR).Informer()
	_, _ = informer.AddEventHandler(cache.ResourceEventHandlerFuncs{
		AddFunc:    func(obj any) { record("add " + color(obj)) },
		UpdateFunc: func(_, obj any) { record("update " + color(obj)) },
		DeleteFunc: func(obj any) {
			if t, ok := obj.(cache.DeletedFinalStateUnknown); ok {
				obj = t.Obj
			}
			record("delete " + color(obj))
		},
	})
	stop := make(chan struct{})
	defer close(stop)
	factory.Start(stop)
	if !cache.WaitForCacheSync(ctx.Done(), informer.HasSynced) {
		fail("the informer did not sync")
	}

	resource := client.Resource(gadgetGVR).Namespace("witness")
	created, err := resource.Create(ctx, gadget("g1", "red"), metav1.CreateOptions{})
	if err != nil {
		fail("create gadget: %v", err)
	}
	if err := unstructured.SetNestedField(created.Object, "blue", "spec", "color"); err != nil {
		fail("set color: %v", err)
	}
	if _, err := resource.Update(ctx, created, metav1.UpdateOptions{}); err != nil {
		fail("update gadget: %v", err)
	}
	if err := resource.Delete(ctx, "g1", metav1.DeleteOptions{}); err != nil {
		fail("delete gadget: %v", err)
	}
	if _, err := resource.Get(ctx, "g1", metav1.GetOptions{}); !apierrors.IsNotFound(err) {
		fail("gadget still there after delete: %v", err)
	}

	want := []string{"add g1=red", "update g1=blue", "delete g1=blue"}
	for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(50 * time.Millisecond) {
		mu.Lock()
		got := strings.Join(seen, ", ")
		mu.Unlock()
		if got == strings.Join(want, ", ") {
			fmt.Println("events: " + got)
			fmt.Println("PASS")
			return
		}
	}
	mu.Lock()
	defer mu.Unlock()
	fail("informer saw [%s], want [%s]", strings.Join(seen, ", "), strings.Join(want, ", "))
}

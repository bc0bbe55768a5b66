// Command clientgo-witness checks apiary with the official Go client.
//
// It runs a SharedInformerFactory for configmaps and namespaces against the
// server named by -kubeconfig, makes changes through a clientset and checks
// that the informers' caches and event handlers saw exactly those changes.
// Halfway it prints "READY-FOR-RESTART" and waits for a line on stdin: the
// driving test (test/compat/client-go.test.ts) restarts the server meanwhile,
// changing data while the informers cannot see it. The program then checks
// that the informers converge to the server's state, reports what the
// handlers saw, and prints "PASS" (exit 0) or "FAIL: why" (exit 1).
//
// Data the test sets up before starting the program: namespace "witness"
// holding configmap "pre" (data v=1). While the server is down the test
// deletes "pre" and creates configmap "offline".
package main

import (
	"bufio"
	"context"
	"flag"
	"fmt"
	"os"
	"reflect"
	"slices"
	"sort"
	"strings"
	"sync"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	metav1ac "k8s.io/client-go/applyconfigurations/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	appsv1ac "k8s.io/client-go/applyconfigurations/apps/v1"
	corev1ac "k8s.io/client-go/applyconfigurations/core/v1"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/cache"
	"k8s.io/client-go/tools/clientcmd"
)

const ns = "witness"

// eventLog records what the handlers saw, one short line per event.
type eventLog struct {
	mu     sync.Mutex
	events []string
}

func (l *eventLog) add(format string, args ...any) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.events = append(l.events, fmt.Sprintf(format, args...))
}

func (l *eventLog) snapshot() []string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return slices.Clone(l.events)
}

func fail(format string, args ...any) {
	fmt.Printf("FAIL: "+format+"\n", args...)
	os.Exit(1)
}

func must(err error, what string) {
	if err != nil {
		fail("%s: %v", what, err)
	}
}

// eventually polls check until it returns "" or the timeout passes; it fails
// with the last reason otherwise.
func eventually(what string, timeout time.Duration, check func() string) {
	deadline := time.Now().Add(timeout)
	for {
		reason := check()
		if reason == "" {
			return
		}
		if time.Now().After(deadline) {
			fail("timed out after %s waiting for %s: %s", timeout, what, reason)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// retry repeats a write while the server comes back (connection refused).
func retry(what string, fn func() error) {
	var err error
	for i := 0; i < 100; i++ {
		if err = fn(); err == nil {
			return
		}
		if apierrors.IsConflict(err) || apierrors.IsAlreadyExists(err) || apierrors.IsInvalid(err) {
			break
		}
		time.Sleep(100 * time.Millisecond)
	}
	fail("%s: %v", what, err)
}

func main() {
	kubeconfig := flag.String("kubeconfig", "", "path to a kubeconfig")
	contentType := flag.String("content-type", "application/vnd.kubernetes.protobuf", "wire format for requests and responses")
	flag.Parse()
	go func() {
		time.Sleep(90 * time.Second)
		fail("the whole run took longer than 90s")
	}()

	config, err := clientcmd.BuildConfigFromFlags("", *kubeconfig)
	must(err, "load kubeconfig")
	config.ContentType = *contentType
	if *contentType != "application/json" {
		// Ask for protobuf, accept JSON: what kube components do.
		config.AcceptContentTypes = *contentType + ",application/json"
	}
	config.QPS, config.Burst = 100, 200
	config.Timeout = 10 * time.Second
	clientset, err := kubernetes.NewForConfig(config)
	must(err, "clientset")
	ctx := context.Background()

	factory := informers.NewSharedInformerFactory(clientset, 0)
	cmInformer := factory.Core().V1().ConfigMaps()
	nsInformer := factory.Core().V1().Namespaces()
	cms, nss := &eventLog{}, &eventLog{}
	_, err = cmInformer.Informer().AddEventHandler(cache.ResourceEventHandlerFuncs{
		AddFunc: func(obj any) {
			cm := obj.(*corev1.ConfigMap)
			if cm.Namespace == ns {
				cms.add("add %s v=%s", cm.Name, cm.Data["v"])
			}
		},
		UpdateFunc: func(oldObj, newObj any) {
			before, after := oldObj.(*corev1.ConfigMap), newObj.(*corev1.ConfigMap)
			// A relist replays objects unchanged (same resourceVersion): not a change.
			if after.Namespace == ns && before.ResourceVersion != after.ResourceVersion {
				cms.add("update %s v=%s", after.Name, after.Data["v"])
			}
		},
		DeleteFunc: func(obj any) {
			if tomb, ok := obj.(cache.DeletedFinalStateUnknown); ok {
				cm := tomb.Obj.(*corev1.ConfigMap)
				if cm.Namespace == ns {
					cms.add("delete %s (tombstone)", cm.Name)
				}
				return
			}
			cm := obj.(*corev1.ConfigMap)
			if cm.Namespace == ns {
				cms.add("delete %s", cm.Name)
			}
		},
	})
	must(err, "add configmap handler")
	_, err = nsInformer.Informer().AddEventHandler(cache.ResourceEventHandlerFuncs{
		AddFunc: func(obj any) {
			n := obj.(*corev1.Namespace)
			if strings.HasPrefix(n.Name, ns) {
				nss.add("add %s", n.Name)
			}
		},
		UpdateFunc: func(oldObj, newObj any) {
			before, after := oldObj.(*corev1.Namespace), newObj.(*corev1.Namespace)
			if strings.HasPrefix(after.Name, ns) && before.ResourceVersion != after.ResourceVersion {
				nss.add("update %s color=%s", after.Name, after.Labels["color"])
			}
		},
	})
	must(err, "add namespace handler")

	stop := make(chan struct{})
	factory.Start(stop)
	for typ, ok := range factory.WaitForCacheSync(stop) {
		if !ok {
			fail("cache of %v did not sync", typ)
		}
	}
	expectLog("initial list (configmaps)", cms, []string{"add pre v=1"})
	expectLog("initial list (namespaces)", nss, []string{"add witness"})

	// Phase 1: create, update, delete while connected.
	api := clientset.CoreV1().ConfigMaps(ns)
	_, err = clientset.CoreV1().Namespaces().Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "witness-two"}}, metav1.CreateOptions{})
	must(err, "create namespace")
	_, err = api.Create(ctx, configMap("a", "1"), metav1.CreateOptions{})
	must(err, "create a")
	_, err = api.Create(ctx, configMap("b", "1"), metav1.CreateOptions{})
	must(err, "create b")
	a, err := api.Get(ctx, "a", metav1.GetOptions{})
	must(err, "get a")
	a.Data["v"] = "2"
	_, err = api.Update(ctx, a, metav1.UpdateOptions{})
	must(err, "update a")
	must(api.Delete(ctx, "b", metav1.DeleteOptions{}), "delete b")
	two, err := clientset.CoreV1().Namespaces().Get(ctx, "witness-two", metav1.GetOptions{})
	must(err, "get namespace")
	two.Labels = map[string]string{"color": "blue"}
	_, err = clientset.CoreV1().Namespaces().Update(ctx, two, metav1.UpdateOptions{})
	must(err, "update namespace")

	expectLog("phase 1 (configmaps)", cms, []string{"add pre v=1", "add a v=1", "add b v=1", "update a v=2", "delete b"})
	expectLog("phase 1 (namespaces)", nss, []string{"add witness", "add witness-two", "update witness-two color=blue"})
	expectCache(ctx, clientset, cmInformer.Lister().ConfigMaps(ns).List)
	if got, err := nsInformer.Lister().Get("witness-two"); err != nil || got.Labels["color"] != "blue" {
		fail("namespace cache: %v %v", got, err)
	}

	serverSideApply(ctx, clientset)

	fmt.Println("READY-FOR-RESTART")
	if _, err := bufio.NewReader(os.Stdin).ReadString('\n'); err != nil {
		fail("waiting for the restart: %v", err)
	}

	// Phase 2: the informers reconnect by themselves and see what changed
	// while they were away (pre deleted, offline created), then live changes.
	eventually("the offline changes", 30*time.Second, func() string {
		got := names(cmInformer.Lister().ConfigMaps(ns).List)
		if !reflect.DeepEqual(got, []string{"a", "offline"}) {
			return fmt.Sprintf("cache holds %v", got)
		}
		return ""
	})
	retry("create after", func() error {
		_, err := api.Create(ctx, configMap("after", "1"), metav1.CreateOptions{})
		return err
	})
	retry("update offline", func() error {
		offline, err := api.Get(ctx, "offline", metav1.GetOptions{})
		if err != nil {
			return err
		}
		offline.Data["v"] = "3"
		_, err = api.Update(ctx, offline, metav1.UpdateOptions{})
		return err
	})
	want := []string{"add pre v=1", "add a v=1", "add b v=1", "update a v=2", "delete b"}
	eventually("phase 2 events", 20*time.Second, func() string {
		got := cms.snapshot()
		if len(got) < len(want)+4 {
			return fmt.Sprintf("configmap events so far: %q", got)
		}
		return ""
	})
	got := cms.snapshot()
	if !reflect.DeepEqual(perObject(got[:len(want)]), perObject(want)) {
		fail("phase 1 events changed: %q", got)
	}
	// The changes made while away come first, exactly once each. The delete
	// arrives either as a watch event (the server resumed the watch from the
	// last resourceVersion: delete, then add, in order) or, when the server
	// answered 410 and the reflector relisted, as a tombstone after the
	// relist's adds (client-go's DeltaFIFO.Replace queues deletions last).
	tail := got[len(want):]
	switch {
	case reflect.DeepEqual(tail[:2], []string{"delete pre", "add offline v=1"}):
		fmt.Println("restart: watch resumed")
	case reflect.DeepEqual(tail[:2], []string{"add offline v=1", "delete pre (tombstone)"}):
		fmt.Println("restart: relisted")
	default:
		fail("events for the changes made while away: %q", tail)
	}
	if !reflect.DeepEqual(tail[2:], []string{"add after v=1", "update offline v=3"}) {
		fail("events after the restart: %q", tail)
	}
	expectCache(ctx, clientset, cmInformer.Lister().ConfigMaps(ns).List)
	time.Sleep(300 * time.Millisecond)
	if extra := cms.snapshot(); len(extra) != len(got) {
		fail("unexpected events after the last change: %q", extra[len(got):])
	}
	fmt.Printf("events: %s\n", strings.Join(got, "; "))
	close(stop)
	factory.Shutdown()
	fmt.Println("PASS")
}

// serverSideApply uses typed Apply with ApplyConfigurations (in namespace
// witness-two, which the informers above ignore): create, removal of a key
// the manager stops applying, a conflict with another manager, force, and
// ExtractConfigMap reading the manager's fields back from managedFields.
func serverSideApply(ctx context.Context, clientset *kubernetes.Clientset) {
	cms := clientset.CoreV1().ConfigMaps("witness-two")
	owner := metav1.ApplyOptions{FieldManager: "witness"}
	applied, err := cms.Apply(ctx, corev1ac.ConfigMap("applied", "witness-two").WithData(map[string]string{"k": "1", "j": "2"}), owner)
	must(err, "apply configmap")
	if len(applied.ManagedFields) != 1 || applied.ManagedFields[0].Manager != "witness" || applied.ManagedFields[0].Operation != metav1.ManagedFieldsOperationApply {
		fail("managedFields after apply: %+v", applied.ManagedFields)
	}
	applied, err = cms.Apply(ctx, corev1ac.ConfigMap("applied", "witness-two").WithData(map[string]string{"k": "1"}), owner)
	must(err, "re-apply configmap")
	if !reflect.DeepEqual(applied.Data, map[string]string{"k": "1"}) {
		fail("a key the manager stopped applying stayed: %v", applied.Data)
	}
	_, err = cms.Apply(ctx, corev1ac.ConfigMap("applied", "witness-two").WithData(map[string]string{"k": "2"}), metav1.ApplyOptions{FieldManager: "rival"})
	if !apierrors.IsConflict(err) || !strings.Contains(err.Error(), `Apply failed with 1 conflict: conflict with "witness": .data.k`) {
		fail("apply of another manager's field: want a conflict, got %v", err)
	}
	applied, err = cms.Apply(ctx, corev1ac.ConfigMap("applied", "witness-two").WithData(map[string]string{"k": "2"}), metav1.ApplyOptions{FieldManager: "rival", Force: true})
	must(err, "forced apply")
	extracted, err := corev1ac.ExtractConfigMap(applied, "rival")
	must(err, "extract configmap")
	if !reflect.DeepEqual(extracted.Data, map[string]string{"k": "2"}) {
		fail("extracted apply configuration: %v", extracted.Data)
	}

	deployments := clientset.AppsV1().Deployments("witness-two")
	labels := map[string]string{"app": "web"}
	deployment := appsv1ac.Deployment("web", "witness-two").WithSpec(appsv1ac.DeploymentSpec().
		WithReplicas(2).
		WithSelector(metav1ac.LabelSelector().WithMatchLabels(labels)).
		WithTemplate(corev1ac.PodTemplateSpec().WithLabels(labels).WithSpec(corev1ac.PodSpec().WithContainers(
			corev1ac.Container().WithName("nginx").WithImage("nginx:1.25").WithPorts(corev1ac.ContainerPort().WithContainerPort(80)),
			corev1ac.Container().WithName("sidecar").WithImage("busybox"),
		))))
	got, err := deployments.Apply(ctx, deployment, owner)
	must(err, "apply deployment")
	if len(got.Spec.Template.Spec.Containers) != 2 || got.Spec.Template.Spec.Containers[0].Ports[0].Protocol != corev1.ProtocolTCP {
		fail("applied deployment: %+v", got.Spec.Template.Spec.Containers)
	}
	fmt.Println("server-side apply: ok")
}

func configMap(name, v string) *corev1.ConfigMap {
	return &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: name}, Data: map[string]string{"v": v}}
}

func names(list func(labels.Selector) ([]*corev1.ConfigMap, error)) []string {
	items, err := list(labels.Everything())
	must(err, "list cache")
	out := make([]string, 0, len(items))
	for _, item := range items {
		out = append(out, item.Name)
	}
	sort.Strings(out)
	return out
}

// expectLog waits until the handlers have seen exactly want (bounded).
// expectLog waits until the handlers have seen exactly `want`, compared per
// object: client-go's DeltaFIFO pops all queued deltas of one key together, so
// events of different objects may interleave differently than the server sent
// them, while each object's own events keep their order.
func expectLog(what string, log *eventLog, want []string) {
	eventually(what, 10*time.Second, func() string {
		if got := log.snapshot(); !reflect.DeepEqual(perObject(got), perObject(want)) {
			return fmt.Sprintf("got %q, want %q (per object)", got, want)
		}
		return ""
	})
}

// perObject groups log lines ("update a v=2") by the object they name, in order.
func perObject(lines []string) map[string][]string {
	byName := map[string][]string{}
	for _, line := range lines {
		fields := strings.Fields(line)
		name := ""
		if len(fields) > 1 {
			name = fields[1]
		}
		byName[name] = append(byName[name], line)
	}
	return byName
}

// expectCache checks that the informer's cache of the namespace holds what the
// server holds: the same names at the same resourceVersions.
func expectCache(ctx context.Context, clientset *kubernetes.Clientset, list func(labels.Selector) ([]*corev1.ConfigMap, error)) {
	eventually("cache equal to the server", 10*time.Second, func() string {
		server, err := clientset.CoreV1().ConfigMaps(ns).List(ctx, metav1.ListOptions{})
		if err != nil {
			return err.Error()
		}
		want := map[string]string{}
		for _, item := range server.Items {
			want[item.Name] = item.ResourceVersion
		}
		items, err := list(labels.Everything())
		must(err, "list cache")
		got := map[string]string{}
		for _, item := range items {
			got[item.Name] = item.ResourceVersion
		}
		if !reflect.DeepEqual(got, want) {
			return fmt.Sprintf("cache %v, server %v", got, want)
		}
		return ""
	})
}

/*
Copyright 2026.

Licensed under the Apache License, Version 2.0 (the "License");
you may not use this file except in compliance with the License.
You may obtain a copy of the License at

    http://www.apache.org/licenses/LICENSE-2.0

Unless required by applicable law or agreed to in writing, software
distributed under the License is distributed on an "AS IS" BASIS,
WITHOUT WARRANTIES OR CONDITIONS OF ANY KIND, either express or implied.
See the License for the specific language governing permissions and
limitations under the License.
*/

package controller

// Added to the scaffold for apiary's proof: the tests envtest users cannot
// write against a bare kube-apiserver (no controllers run there): the
// reconciler's owned ConfigMap is collected with its Guestbook, and a deleted
// namespace goes away. With apiary as envtest's kube-apiserver they pass.

import (
	"os"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	webappv1 "example.com/guestbook/api/v1"
)

// controllerWait bounds the waits for controllers' work: CONTROLLER_WAIT (a Go duration), default 30s.
func controllerWait() time.Duration {
	if d, err := time.ParseDuration(os.Getenv("CONTROLLER_WAIT")); err == nil {
		return d
	}
	return 30 * time.Second
}

var _ = Describe("Guestbook on apiary", func() {
	It("keeps the message in an owned ConfigMap that is collected with its Guestbook", func() {
		message := "hello"
		gb := &webappv1.Guestbook{
			ObjectMeta: metav1.ObjectMeta{Name: "owner", Namespace: "default"},
			Spec:       webappv1.GuestbookSpec{Foo: &message},
		}
		Expect(k8sClient.Create(ctx, gb)).To(Succeed())
		r := &GuestbookReconciler{Client: k8sClient, Scheme: k8sClient.Scheme()}
		_, err := r.Reconcile(ctx, reconcile.Request{NamespacedName: client.ObjectKeyFromObject(gb)})
		Expect(err).NotTo(HaveOccurred())
		cm := &corev1.ConfigMap{}
		key := types.NamespacedName{Namespace: "default", Name: "owner-guestbook"}
		Expect(k8sClient.Get(ctx, key, cm)).To(Succeed())
		Expect(cm.Data).To(HaveKeyWithValue("message", "hello"))
		Expect(cm.OwnerReferences).To(HaveLen(1))

		Expect(k8sClient.Delete(ctx, gb, client.PropagationPolicy(metav1.DeletePropagationBackground))).To(Succeed())
		Eventually(func() bool {
			return errors.IsNotFound(k8sClient.Get(ctx, key, &corev1.ConfigMap{}))
		}, controllerWait(), 100*time.Millisecond).Should(BeTrue(), "the owned ConfigMap is garbage collected")
	})

	It("deletes a namespace with a Guestbook in it", func() {
		ns := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "doomed"}}
		Expect(k8sClient.Create(ctx, ns)).To(Succeed())
		gb := &webappv1.Guestbook{ObjectMeta: metav1.ObjectMeta{Name: "inside", Namespace: "doomed"}}
		Expect(k8sClient.Create(ctx, gb)).To(Succeed())
		Expect(k8sClient.Delete(ctx, ns)).To(Succeed())
		Eventually(func() bool {
			return errors.IsNotFound(k8sClient.Get(ctx, types.NamespacedName{Name: "doomed"}, &corev1.Namespace{}))
		}, controllerWait(), 100*time.Millisecond).Should(BeTrue(), "the namespace finishes deleting")
	})
})

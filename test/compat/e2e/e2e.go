// Upstream's end-to-end suite v1.32.4 (k8s.io/kubernetes/test/e2e), built as a
// test binary from the Go module proxy: `go test -c k8s.io/kubernetes/test/e2e`.
// The conformance pass (test/compat/conformance) runs its [Conformance] specs
// against apiary and against kube-apiserver 1.32.4. Nothing is patched. This
// file only keeps the requirement in go.mod.
package e2e

import _ "k8s.io/kubernetes/test/e2e/framework"

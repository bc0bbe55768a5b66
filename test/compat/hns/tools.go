//go:build tools

// The `kubectl hns` plugin of the Hierarchical Namespace Controller
// (sigs.k8s.io/hierarchical-namespaces, its cmd/kubectl), built from the Go
// module proxy with `go build sigs.k8s.io/hierarchical-namespaces/cmd/kubectl`
// into bin/kubectl-hns: the tenancy tests (test/tenancy/hns-plugin*) run it
// against `apiary serve`. Nothing is patched; this file only pins the requirement.
package tools

import _ "sigs.k8s.io/hierarchical-namespaces/cmd/kubectl"

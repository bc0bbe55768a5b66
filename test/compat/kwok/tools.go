//go:build tools

// kwok (sigs.k8s.io/kwok), built from the Go module proxy with
// `go build sigs.k8s.io/kwok/cmd/kwok`: it simulates nodes and their pods
// (Ready nodes, Running pods) in the control-plane test that runs upstream's
// programs against apiary (test/compat/controlplane). Nothing is patched;
// this file only pins the requirement in go.mod.
package tools

import _ "sigs.k8s.io/kwok/cmd/kwok"

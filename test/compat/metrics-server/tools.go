//go:build tools

// metrics-server (sigs.k8s.io/metrics-server), built from the Go module proxy
// with `go build sigs.k8s.io/metrics-server/cmd/metrics-server`: it scrapes
// kwok's simulated kubelets and serves metrics.k8s.io for `kubectl top`
// through apiary's aggregator (test/aggregation). Nothing is patched; this
// file only pins the requirement in go.mod.
package tools

import _ "sigs.k8s.io/metrics-server/cmd/metrics-server"

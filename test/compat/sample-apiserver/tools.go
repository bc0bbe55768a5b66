//go:build tools

// k8s.io/sample-apiserver, built from the Go module proxy with
// `go build k8s.io/sample-apiserver`: upstream's example extension API server
// (wardle.example.com flunders and fischers). The aggregation tests
// (test/aggregation) run it as a process on loopback behind apiary's
// aggregator. Nothing is patched; this file only pins the requirement in go.mod.
package tools

import _ "k8s.io/sample-apiserver"

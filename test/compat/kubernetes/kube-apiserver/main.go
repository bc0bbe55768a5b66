// kube-apiserver v1.32, built from the Go module proxy: the reference server
// of the differential test (test/compat/differential.test.ts). Nothing is
// patched: this is upstream's own command.
package main

import (
	"os"

	"k8s.io/component-base/cli"
	"k8s.io/kubernetes/cmd/kube-apiserver/app"
)

func main() { os.Exit(cli.Run(app.NewAPIServerCommand())) }

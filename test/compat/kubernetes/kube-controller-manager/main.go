// kube-controller-manager v1.32, built from the Go module proxy: the reference
// side's controllers (namespace deletion, service accounts, garbage
// collection) in the differential test. Nothing is patched.
package main

import (
	"os"

	"k8s.io/component-base/cli"
	"k8s.io/kubernetes/cmd/kube-controller-manager/app"
)

func main() { os.Exit(cli.Run(app.NewControllerManagerCommand())) }

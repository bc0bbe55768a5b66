// kube-scheduler v1.32, built from the Go module proxy: binds pods to nodes
// through pods/binding in the control-plane test that runs upstream's own
// programs against apiary (test/compat/controlplane). Nothing is patched.
package main

import (
	"os"

	"k8s.io/component-base/cli"
	"k8s.io/kubernetes/cmd/kube-scheduler/app"
)

func main() { os.Exit(cli.Run(app.NewSchedulerCommand())) }

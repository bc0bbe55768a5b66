//go:build tools

// Helm v3.16 (helm.sh/helm/v3), built from the Go module proxy with
// `go build helm.sh/helm/v3/cmd/helm`: the chart pass (test/compat/charts)
// installs, upgrades, rolls back and uninstalls charts with it on apiary and on
// kube-apiserver 1.32. Nothing is patched; this file only pins the requirement.
package tools

import _ "helm.sh/helm/v3/cmd/helm"

// etcd 3.5 for benchmarks: the etcd server itself, built from the Go module
// proxy (go build -o /tmp/etcd-3.5 . in this directory), for
// `ETCD_BIN=/tmp/etcd-3.5 node --import tsx bench/etcd.ts`.
//
// Why: Debian's etcd-server package, which tests and CI use, is etcd 3.4. In
// 3.4 every transaction that writes also copies the backend's read buffer
// (etcd pull request 12896 removed that in 3.5), so the guarded put apiary
// and kube-apiserver send for a create costs etcd about twice a plain put.
// Kubernetes 1.32 runs on etcd 3.5. This main is etcd's own (etcdmain.Main);
// a module of our own is needed because etcd's root module has replace
// directives, which `go install module@version` refuses.
package main

import (
	"os"

	"go.etcd.io/etcd/server/v3/etcdmain"
)

func main() { etcdmain.Main(os.Args) }

// etcd 3.5, built from the Go module proxy: etcd's own server main
// (etcdmain.Main), for the second pass of `npm test` (scripts/run-tests.mjs
// builds it into bin/ and runs the tests on real etcd on it) and for benchmarks
// (`go build -o /tmp/etcd-3.5 .` here, then
// `ETCD_BIN=/tmp/etcd-3.5 node --import tsx bench/etcd.ts`).
//
// Why a second etcd: Debian's etcd-server package, the etcd of the first pass,
// is 3.4. Kubernetes 1.32 runs on 3.5, which differs where apiary looks:
// its progress notifications can be trusted (3.5.13 and later), so consistent
// lists are served from the watch cache; and a writing transaction no longer
// copies the backend's read buffer (etcd pull request 12896), so the guarded
// put of a create costs etcd about what a plain put does, not twice.
// A module of our own because etcd's root module has replace directives,
// which `go install module@version` refuses.
package main

import (
	"os"

	"go.etcd.io/etcd/server/v3/etcdmain"
)

func main() { etcdmain.Main(os.Args) }

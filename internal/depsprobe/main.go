package main
import (
 _ "github.com/nats-io/nats.go"
 _ "github.com/nats-io/nats-server/v2/server"
 _ "github.com/valyala/fastjson"
 _ "github.com/cloudflare/ahocorasick"
 _ "github.com/klauspost/compress/zstd"
 _ "github.com/prometheus/client_golang/prometheus"
 _ "golang.org/x/text/unicode/norm"
 _ "sigs.k8s.io/yaml"
 _ "github.com/santhosh-tekuri/jsonschema/v6"
)
func main(){}

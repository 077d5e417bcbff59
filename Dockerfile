# sanitize-worker image: a static binary (no cgo) on distroless static,
# running as the nonroot user (65532). Build from the clone:
#   docker build -t sanitize-worker:dev .
# deploy/validate runs the go build line below outside Docker and checks
# that the binary is static.
FROM golang:1.26.8-bookworm AS build
WORKDIR /src
COPY go.mod go.sum ./
RUN go mod download
COPY . .
# -trimpath: no build paths in the binary. The version command reads the
# module version and the VCS revision from the build info, which has none
# here (-buildvcs needs the .git directory, which .dockerignore keeps out),
# so they are stamped: docker build --build-arg VCS_REVISION=$(git rev-parse HEAD)
# [--build-arg VERSION=v1.2.3]. Without them it reports commit unknown.
ARG VCS_REVISION=unknown
ARG VERSION=
RUN CGO_ENABLED=0 go build -trimpath -buildvcs=false -ldflags="-s -w -X main.vcsRevision=${VCS_REVISION} -X main.stampedVersion=${VERSION}" -o /out/sanitize-worker ./cmd/sanitize-worker

FROM gcr.io/distroless/static-debian12:nonroot
COPY --from=build /out/sanitize-worker /usr/local/bin/sanitize-worker
USER 65532:65532
# /metrics, /healthz, /readyz (serve --http-addr :9090 in deploy/kubernetes)
EXPOSE 9090
ENTRYPOINT ["/usr/local/bin/sanitize-worker"]
CMD ["serve"]

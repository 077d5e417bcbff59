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
# -trimpath: no build paths in the binary; the version command reads the
# module version and the VCS revision from the build info (-buildvcs needs
# the .git directory, which .dockerignore keeps out: pass VCS_REVISION).
ARG VCS_REVISION=unknown
RUN CGO_ENABLED=0 go build -trimpath -buildvcs=false -ldflags="-s -w -X main.vcsRevision=${VCS_REVISION}" -o /out/sanitize-worker ./cmd/sanitize-worker

FROM gcr.io/distroless/static-debian12:nonroot
COPY --from=build /out/sanitize-worker /usr/local/bin/sanitize-worker
USER 65532:65532
# /metrics, /healthz, /readyz (serve --http-addr :9090 in deploy/kubernetes)
EXPOSE 9090
ENTRYPOINT ["/usr/local/bin/sanitize-worker"]
CMD ["serve"]

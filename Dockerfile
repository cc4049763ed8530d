# The gb image gb k8s job names: the static gb binary on distroless, run as
# nobody. Build: docker build -t ghcr.io/gb-bench/gb:0.1.0 .
FROM golang:1.26 AS build
WORKDIR /src
COPY go.mod go.sum ./
RUN go mod download
COPY . .
RUN CGO_ENABLED=0 go build -trimpath -ldflags=-s -o /gb ./cmd/gb

FROM gcr.io/distroless/static-debian12:nonroot
COPY --from=build /gb /gb
ENTRYPOINT ["/gb"]

# syntax=docker/dockerfile:1
# Multi-stage build of every ExposureSuite executable into one small runtime image.
#   docker build -t exposure-suite .
#   docker run --rm exposure-suite verification-service --help
ARG SWIFT_VERSION=6.3

FROM swift:${SWIFT_VERSION}-bookworm AS build
# libsodium for NaCl boxes (the CovidShield uploads), found through pkg-config by the CSodium system library.
RUN apt-get update \
 && apt-get install -y --no-install-recommends libsodium-dev pkg-config \
 && rm -rf /var/lib/apt/lists/*
WORKDIR /src
# Resolve dependencies first so that source changes do not refetch them.
COPY Package.swift ./
RUN swift package resolve
COPY . .
# The commit `--version` names: the build context has no .git, so give it
# (`docker build --build-arg BUILD_COMMIT=$(git rev-parse --short=12 HEAD) .`); the compose file does.
ARG BUILD_COMMIT=unknown
RUN printf '%s\n' "$BUILD_COMMIT" > BUILD_COMMIT
# The flags every release build shares are in scripts/release-build, which builds the products one by one.
RUN scripts/release-build \
        --product verification-service --product testresult-service \
        --product submission-service --product portal-service --product exposure-suite \
 && mkdir -p /out \
 && cp .build/release/verification-service .build/release/testresult-service \
       .build/release/submission-service .build/release/portal-service .build/release/exposure-suite /out/ \
 && (cp -R .build/release/*.resources /out/ 2>/dev/null || true)

FROM debian:bookworm-slim
RUN apt-get update \
 && apt-get install -y --no-install-recommends ca-certificates tzdata libsqlite3-0 libsodium23 \
 && rm -rf /var/lib/apt/lists/* \
 && groupadd --system --gid 10001 exposure \
 && useradd --system --uid 10001 --gid exposure --create-home --home-dir /var/lib/exposure exposure
COPY --from=build /out/ /usr/local/bin/
# Mount points for docker-compose.yml's volumes: a new named volume takes the owner of the directory it is mounted
# on, so the services, which do not run as root, can write their keys and the export tree there.
RUN mkdir -p /keys /exports && chown exposure:exposure /keys /exports
# By number, so that Kubernetes can verify runAsNonRoot (deploy/kubernetes runs the pods as 10001).
USER 10001:10001
WORKDIR /var/lib/exposure
ENV BIND_HOST=0.0.0.0 LOG_FORMAT=json
EXPOSE 8010 8011 8012 8020 8021 8022 8030 8032 8040 8042
CMD ["exposure-suite"]

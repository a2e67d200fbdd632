# The service in a container. Built only from the npm registry (Deno's official linux binary package,
# checked against its registry digest) and Debian, so it builds where Docker Hub's deno image is out of
# reach. The Deno version is pinned here and nowhere else: .ci/run and the README read DENO_VERSION from
# this file (change DENO_SHA512 with it: `npm view @deno/linux-x64-glibc@<version> dist.integrity`).
ARG DENO_VERSION=2.9.6
ARG DENO_SHA512=de67784ca2c2bb3b0b0e67cea02e4a37b34065ac525643209bae2f83a7e80f4d090400c2a584b6ff942a5dfce09cfe59433de22cff6f05026d120735d7a380a1

FROM debian:bookworm-slim AS deno
ARG DENO_VERSION
ARG DENO_SHA512
RUN apt-get update && apt-get install -y --no-install-recommends ca-certificates curl \
  && curl -fsSL "https://registry.npmjs.org/@deno/linux-x64-glibc/-/linux-x64-glibc-${DENO_VERSION}.tgz" -o /tmp/deno.tgz \
  && echo "${DENO_SHA512}  /tmp/deno.tgz" | sha512sum -c - \
  && tar -xzf /tmp/deno.tgz -C /tmp \
  && install -m 0755 /tmp/package/deno /usr/local/bin/deno \
  && /usr/local/bin/deno --version

FROM debian:bookworm-slim
RUN apt-get update && apt-get install -y --no-install-recommends ca-certificates \
  && rm -rf /var/lib/apt/lists/* \
  && useradd --system --uid 1993 --create-home --home-dir /home/deno deno \
  && mkdir -p /app /data && chown deno:deno /data
COPY --from=deno /usr/local/bin/deno /usr/local/bin/deno
ENV DENO_DIR=/home/deno/.cache/deno HOST=0.0.0.0 PORT=8787 DATA_DIR=/data LOG_FORMAT=json
WORKDIR /app
USER deno
# Dependencies first, in their own layer: it is rebuilt only when deno.json or deno.lock change.
COPY --chown=deno:deno deno.json deno.lock ./
COPY --chown=deno:deno src/deps-warmup.ts ./src/deps-warmup.ts
RUN deno cache --frozen src/deps-warmup.ts
COPY --chown=deno:deno src ./src
COPY --chown=deno:deno openapi ./openapi
COPY --chown=deno:deno generated ./generated
RUN deno cache --frozen src/main.ts
VOLUME ["/data"]
EXPOSE 8787
HEALTHCHECK --interval=15s --timeout=3s --start-period=30s --retries=3 \
  CMD ["deno", "eval", "const r = await fetch(`http://127.0.0.1:${Deno.env.get('PORT') ?? 8787}/health`); Deno.exit(r.ok ? 0 : 1)"]
# V8 heap sizes for a small resident set (docs/performance.md, "Memory"): the same flags as `deno task start`.
CMD ["deno", "run", "--v8-flags=--max-semi-space-size=8,--max-old-space-size=512", "--allow-net", "--allow-env", "--allow-read", "--allow-write", "--allow-sys", "src/main.ts"]

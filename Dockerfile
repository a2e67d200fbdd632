FROM node:20-bookworm-slim
RUN npm install -g deno && deno --version
WORKDIR /app
COPY deno.json deno.lock ./
COPY src ./src
COPY scripts ./scripts
COPY openapi ./openapi
COPY generated ./generated
RUN deno cache src/main.ts
ENV HOST=0.0.0.0 PORT=8787 DATA_DIR=/data
VOLUME ["/data"]
EXPOSE 8787
CMD ["deno", "task", "start"]

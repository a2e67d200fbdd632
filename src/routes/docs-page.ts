interface Operation {
  summary?: string;
  description?: string;
  tags?: string[];
  "x-svc-scope"?: string;
  "x-svc-cost"?: number;
  "x-svc-roles"?: string[];
}

interface Document {
  info: { title: string; version: string; description?: string };
  paths?: Record<string, Record<string, Operation> | undefined>;
}

function escape(text: string): string {
  return text.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;").replace(/"/g, "&quot;");
}

/** A readable, script-free reference page rendered from the OpenAPI document. */
export function docsPage(doc: Document): string {
  const rows: string[] = [];
  for (const [path, ops] of Object.entries(doc.paths ?? {}).sort(([a], [b]) => a.localeCompare(b))) {
    for (const [method, op] of Object.entries(ops ?? {})) {
      const policy = [
        op["x-svc-scope"] ? `scope <code>${escape(op["x-svc-scope"])}</code>` : "",
        op["x-svc-roles"] ? `roles ${escape(op["x-svc-roles"].join(", "))}` : "",
        op["x-svc-cost"] !== undefined ? `cost ${op["x-svc-cost"]}` : "",
      ].filter(Boolean).join(" · ");
      rows.push(
        `<section><h3><span class="m">${method.toUpperCase()}</span> <code>${escape(path)}</code></h3>` +
          `<p>${escape(op.summary ?? "")}</p>${op.description ? `<p>${escape(op.description)}</p>` : ""}` +
          `<p class="p">${policy}</p></section>`,
      );
    }
  }
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>${
    escape(doc.info.title)
  } API</title>
<style>body{font:15px/1.5 system-ui,sans-serif;max-width:60rem;margin:2rem auto;padding:0 1rem}
.m{display:inline-block;min-width:4.5rem;font-weight:700}section{border-top:1px solid #ddd}.p{color:#555}
pre{white-space:pre-wrap;background:#f6f6f6;padding:1rem}</style></head><body>
<h1>${escape(doc.info.title)} <small>v${escape(doc.info.version)}</small></h1>
<pre>${escape(doc.info.description ?? "")}</pre>
<p>Machine-readable document: <a href="/openapi.json">/openapi.json</a></p>
${rows.join("\n")}
</body></html>`;
}

// deno-lint-ignore-file no-explicit-any
import Ajv2020 from "ajv/dist/2020.js";
import addFormats from "ajv-formats";

/** JSON Schema as it appears in the OpenAPI document. */
export type Schema = Record<string, any>;

export interface Param {
  name: string;
  in: "path" | "query" | "header";
  required: boolean;
  schema: Schema;
}

export interface Operation {
  /** `POST /ticket`: the name used in reports and in `FUZZ_OPS`. */
  id: string;
  method: string;
  /** The documented path, with `{param}` placeholders. */
  path: string;
  params: Param[];
  /** The JSON request body schema (top-level `$ref` resolved), when the operation takes one. */
  body: Schema | null;
  bodyRequired: boolean;
  /** Status -> content type -> schema. */
  responses: Record<string, Record<string, Schema>>;
  bearer: boolean;
  roles: string[] | null;
  /** True for operations with their own server (OAuth discovery, keys, tokens): `path` is the full path. */
  ownServer: boolean;
}

export const DOCUMENT_PATH = new URL("../../../openapi/openapi.json", import.meta.url);
const BASE = "https://fuzz.local/openapi.json";

export interface Contract {
  doc: any;
  operations: Operation[];
  /** Follows `$ref`s into components (one level at a time). */
  deref(schema: Schema): Schema;
  /** Validates a response body against the schema documented for the status and content type. */
  validate(op: Operation, status: number, contentType: string, body: unknown): string[] | null;
  /** Validates a value against any schema of the document (its `$ref`s resolve into the components). */
  check(schema: Schema, value: unknown): string[] | null;
}

function derefIn(doc: any, schema: Schema | null): Schema | null {
  let s = schema;
  for (let i = 0; i < 20 && s && typeof s.$ref === "string"; i++) {
    s = doc.components.schemas[s.$ref.replace("#/components/schemas/", "")];
  }
  return s ?? null;
}

/** `withServers`: also the operations with their own server, which the REST fuzzing leaves out. */
export async function loadContract(options: { withServers?: boolean } = {}): Promise<Contract> {
  const doc = JSON.parse(await Deno.readTextFile(DOCUMENT_PATH));
  const operations: Operation[] = [];
  for (const [path, item] of Object.entries<any>(doc.paths)) {
    for (const method of ["get", "post", "put", "patch", "delete"]) {
      const op = item[method];
      // Operations with their own server (OAuth discovery and keys, outside {base_url}) are not REST
      // routes under /api and /svc: tests/oauth covers them.
      if (!op || (op.servers && !options.withServers)) continue;
      const responses: Record<string, Record<string, Schema>> = {};
      for (const [status, response] of Object.entries<any>(op.responses ?? {})) {
        responses[status] = {};
        for (const [type, media] of Object.entries<any>(response.content ?? {})) {
          responses[status]![type] = media.schema ?? {};
        }
      }
      operations.push({
        id: `${method.toUpperCase()} ${path}`,
        method: method.toUpperCase(),
        path,
        params: (op.parameters ?? []).map((p: any) => ({
          name: p.name,
          in: p.in,
          required: p.required === true,
          schema: p.schema ?? {},
        })),
        body: derefIn(doc, op.requestBody?.content?.["application/json"]?.schema ?? null),
        bodyRequired: op.requestBody?.required === true,
        responses,
        bearer: Array.isArray(op.security) && op.security.length > 0,
        roles: op["x-svc-roles"] ?? null,
        ownServer: Boolean(op.servers),
      });
    }
  }

  const AjvClass = (Ajv2020 as any).default ?? Ajv2020;
  const ajv = new AjvClass({ strict: false, allErrors: true, validateFormats: true });
  ((addFormats as any).default ?? addFormats)(ajv);
  ajv.addSchema({ $id: BASE, components: doc.components });
  const compiled = new Map<string, any>();

  const rewrite = (x: any): any => {
    if (Array.isArray(x)) return x.map(rewrite);
    if (x && typeof x === "object") {
      const out: any = {};
      for (const [k, v] of Object.entries(x)) {
        out[k] = k === "$ref" && typeof v === "string" && v.startsWith("#/") ? BASE + v : rewrite(v);
      }
      return out;
    }
    return x;
  };

  const report = (fn: any) =>
    (fn.errors ?? []).slice(0, 5).map((e: any) =>
      `${e.instancePath || "(root)"} ${e.message}${e.params ? " " + JSON.stringify(e.params) : ""}`
    );

  return {
    doc,
    operations,
    check(schema, value) {
      const fn = ajv.compile(rewrite(schema));
      return fn(value) ? null : report(fn);
    },
    deref(schema: Schema): Schema {
      let s = schema;
      for (let i = 0; i < 20 && s && typeof s.$ref === "string"; i++) {
        const name = s.$ref.replace("#/components/schemas/", "");
        s = doc.components.schemas[name];
      }
      return s ?? {};
    },
    validate(op, status, contentType, body) {
      const media = op.responses[String(status)];
      const schema = media?.[contentType];
      if (!schema) return [`no schema documented for ${status} ${contentType}`];
      const key = `${op.id} ${status} ${contentType}`;
      let fn = compiled.get(key);
      if (!fn) {
        fn = ajv.compile(rewrite(schema));
        compiled.set(key, fn);
      }
      return fn(body) ? null : report(fn);
    },
  };
}

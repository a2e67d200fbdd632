// deno-lint-ignore-file no-explicit-any
/**
 * "Does every value a tool's JSON Schema admits also pass the route's schema?", decided on the schemas
 * themselves (the keywords Zod and the OpenAPI document use): types, enums and constants, string lengths,
 * patterns and formats, number bounds, array sizes and items, object properties, required fields and
 * unknown keys. Answers with the places where the tool is looser than the route (empty: no drift).
 */
import Ajv2020 from "ajv/dist/2020.js";
import addFormats from "ajv-formats";

export type Schema = Record<string, any>;

const AjvClass = (Ajv2020 as any).default ?? Ajv2020;
const ajv = new AjvClass({ strict: false, allErrors: false, validateFormats: true });
((addFormats as any).default ?? addFormats)(ajv);

const NOISE = new Set(["description", "example", "examples", "title", "$schema", "default", "deprecated"]);

/** `$ref`s resolved everywhere (the route schemas come from the OpenAPI document's components). */
export function inline(schema: Schema, deref: (s: Schema) => Schema, depth = 0): Schema {
  if (depth > 30) throw new Error("schema nests too deep to inline");
  if (Array.isArray(schema)) return schema.map((s) => inline(s, deref, depth + 1)) as any;
  if (!schema || typeof schema !== "object") return schema;
  const resolved = typeof schema.$ref === "string" ? deref(schema) : schema;
  const out: Schema = {};
  for (const [k, v] of Object.entries(resolved)) {
    if (k === "$ref") continue;
    out[k] = v && typeof v === "object" ? inline(v, deref, depth + 1) : v;
  }
  return out;
}

function constraints(s: Schema): string[] {
  return Object.keys(s).filter((k) => !NOISE.has(k));
}

function typesOf(s: Schema): string[] | null {
  if (s.type === undefined) return null;
  return Array.isArray(s.type) ? s.type : [s.type];
}

function valuesOf(s: Schema): unknown[] | null {
  if (s.const !== undefined) return [s.const];
  if (Array.isArray(s.enum)) return s.enum;
  if (typesOf(s)?.length === 1 && s.type === "null") return [null];
  return null;
}

/** The branch of a multi-type schema for one type (`{ type: ["string", "null"], maxLength }`). */
function forType(s: Schema, type: string): Schema {
  return { ...s, type };
}

/** Zod writes `Number.MAX_SAFE_INTEGER` (and its negative) for an int without a bound of its own. */
const real = (n: number | undefined) =>
  n === undefined || Math.abs(n) === Number.MAX_SAFE_INTEGER ? undefined : n;

const bound = (
  at: string,
  what: string,
  toolBound: number | undefined,
  routeBound: number | undefined,
  looser: (t: number, r: number) => boolean,
): string[] => {
  const [tool, route] = [real(toolBound), real(routeBound)];
  return route !== undefined && (tool === undefined || looser(tool, route))
    ? [`${at}: ${what} ${tool ?? "unbounded"} where the route has ${route}`]
    : [];
};

/** Where `tool` admits something `route` refuses. `at` names the place (`title`, `tickets[].type`). */
export function looserThan(tool: Schema, route: Schema, at = "(input)"): string[] {
  if (constraints(route).length === 0) return [];
  if (Array.isArray(tool.anyOf)) return tool.anyOf.flatMap((b: Schema) => looserThan({ ...b }, route, at));
  const tTypes = typesOf(tool);
  // A multi-type tool schema is a union too: each of its types must fit the route on its own.
  if (tTypes && tTypes.length > 1) return tTypes.flatMap((t) => looserThan(forType(tool, t), route, at));
  if (Array.isArray(route.anyOf) || Array.isArray(route.oneOf)) {
    const branches: Schema[] = route.anyOf ?? route.oneOf;
    const fits = branches.map((b) => looserThan(tool, b, at));
    if (fits.some((f) => f.length === 0)) return [];
    return [`${at}: fits no branch of the route's anyOf (${fits.map((f) => f[0]).join("; ")})`];
  }
  const values = valuesOf(tool);
  if (values !== null) {
    const check = ajv.compile(route);
    return values.filter((v) => !check(v)).map((v) =>
      `${at}: the tool accepts ${JSON.stringify(v)}, the route refuses it`
    );
  }
  const rTypes = typesOf(route);
  if (rTypes && rTypes.length > 1) {
    const t = tTypes?.[0];
    const match = rTypes.find((r) => r === t || (t === "integer" && r === "number"));
    if (match === undefined) {
      return [`${at}: type ${t ?? "any"} where the route takes ${rTypes.join(" or ")}`];
    }
    return looserThan(tool, forType(route, match), at);
  }
  const t = tTypes?.[0];
  const r = rTypes?.[0];
  const problems: string[] = [];
  if (r !== undefined && !(t === r || (t === "integer" && r === "number"))) {
    return [`${at}: type ${t ?? "any"} where the route takes ${r}`];
  }
  if (Array.isArray(route.enum) || route.const !== undefined) {
    problems.push(
      `${at}: any ${t ?? "value"} where the route takes only ${JSON.stringify(route.enum ?? [route.const])}`,
    );
  }
  problems.push(
    ...bound(at, "maxLength", tool.maxLength, route.maxLength, (a, b) => a > b),
    ...bound(at, "minLength", tool.minLength, route.minLength, (a, b) => a < b),
    ...bound(at, "maximum", tool.maximum, route.maximum, (a, b) => a > b),
    ...bound(at, "minimum", tool.minimum, route.minimum, (a, b) => a < b),
    ...bound(at, "maxItems", tool.maxItems, route.maxItems, (a, b) => a > b),
    ...bound(at, "minItems", tool.minItems, route.minItems, (a, b) => a < b),
  );
  const bothUuid = tool.format === "uuid" && route.format === "uuid";
  if (route.pattern !== undefined && tool.pattern !== route.pattern && !bothUuid) {
    problems.push(`${at}: pattern ${tool.pattern ?? "none"} where the route has ${route.pattern}`);
  }
  if (route.format !== undefined && tool.format !== route.format) {
    problems.push(`${at}: format ${tool.format ?? "none"} where the route has ${route.format}`);
  }
  if (r === "array" && route.items) problems.push(...looserThan(tool.items ?? {}, route.items, `${at}[]`));
  if (r === "object" || route.properties) problems.push(...objectLooser(tool, route, at));
  return problems;
}

function objectLooser(tool: Schema, route: Schema, at: string): string[] {
  const problems: string[] = [];
  const tProps: Record<string, Schema> = tool.properties ?? {};
  const rProps: Record<string, Schema> = route.properties ?? {};
  const prefix = at === "(input)" ? "" : `${at}.`;
  for (const [name, schema] of Object.entries(tProps)) {
    if (name in rProps) problems.push(...looserThan(schema, rProps[name]!, `${prefix}${name}`));
    else if (route.additionalProperties === undefined || route.additionalProperties === false) {
      // A closed route refuses the key; an open one without additionalProperties silently drops it.
      problems.push(`${prefix}${name}: the route takes no such field`);
    } else if (typeof route.additionalProperties === "object") {
      problems.push(...looserThan(schema, route.additionalProperties, `${prefix}${name}`));
    }
  }
  const tRequired = new Set<string>(tool.required ?? []);
  for (const name of route.required ?? []) {
    if (!tRequired.has(name) && tProps[name]?.default === undefined) {
      problems.push(`${prefix}${name}: required by the route, optional in the tool`);
    }
  }
  return problems;
}

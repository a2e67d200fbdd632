import { type DomainError, fail, recovery } from "@/domain/core/errors.ts";
import type { FieldError } from "@/shared/field-errors.ts";

const PATH_IN_TEXT = /(?:^|[\s`'"(])((?:[\w.-]+\/)+[\w.-]+\.[A-Za-z0-9]{1,8})(?=$|[\s`'",):;])/g;

/** Paths mentioned in a title or description (`src/auth/login.ts`), as an expectedFiles guess. */
function pathsIn(text: string): string[] {
  return [...new Set([...text.matchAll(PATH_IN_TEXT)].map((m) => m[1]!))].slice(0, 10);
}

/** What to send for each missing agent-first field: a hint and an example, guessed from the body when possible. */
function suggestionFor(field: string, body: Record<string, unknown>): { hint: string; example: unknown } {
  const text = `${typeof body.title === "string" ? body.title : ""}\n${
    typeof body.description === "string" ? body.description : ""
  }`;
  switch (field) {
    case "expectedFiles": {
      const guessed = pathsIn(text);
      return {
        hint: "1 to 50 repository paths you expect to change" +
          (guessed.length > 0 ? " (these were found in the title or description)" : ""),
        example: guessed.length > 0 ? guessed : ["src/<module>/<file>.ts"],
      };
    }
    case "doneDefinition":
      return {
        hint: "20 to 500 characters saying, checkably, when the ticket is done",
        example: "The new endpoint answers 200 with the documented shape and its tests pass",
      };
    case "verificationCommand":
      return {
        hint: "10 to 500 characters: the command that proves it works",
        example: "deno test --allow-all tests/",
      };
    default:
      return {
        hint: "local (only this change), shared-state (touches data or config others use) or irreversible " +
          "(migrations, deletions, releases)",
        example: "local",
      };
  }
}

/**
 * 400 VALIDATION_ERROR for a create without its agent-first fields: `details.missing` names them,
 * `details.suggestions` gives a hint and example per field, recovery ADD_REQUIRED_FIELDS shows the body
 * to send again. Other field errors of the same body are listed in `details.fields`.
 */
export function agentFirstRefusal(
  raw: unknown,
  missing: string[],
  otherFields: Array<{ path: string; message: string; code: string }> = [],
) {
  const body = typeof raw === "object" && raw !== null && !Array.isArray(raw)
    ? raw as Record<string, unknown>
    : {};
  const suggestions = Object.fromEntries(missing.map((f) => [f, suggestionFor(f, body)]));
  const payloadHint: Record<string, unknown> = { title: body.title ?? "<title>" };
  for (const f of missing) payloadHint[f] = suggestions[f]!.example;
  return fail.validation(`Missing agent-first field(s): ${missing.join(", ")}`, {
    missing,
    suggestions,
    fields: otherFields,
    recovery: recovery(
      "ADD_REQUIRED_FIELDS",
      "POST /ticket",
      "Send the ticket again with expectedFiles, doneDefinition, verificationCommand and riskClass",
      payloadHint,
    ),
  });
}

/** When the transition period began (RFC 9745 `Deprecation`) and ends (RFC 8594 `Sunset`). */
export const LEGACY_CREATE_DEPRECATED_AT = new Date("2026-01-01T00:00:00Z");
export const LEGACY_CREATE_SUNSET = new Date("2027-07-01T00:00:00Z");

/**
 * An older client (one that says it was built before the agent-first fields) is accepted without them
 * while the service clock is before the sunset.
 */
export function legacyCreateAccepted(declaresLegacy: boolean, now: Date): boolean {
  return declaresLegacy && now < LEGACY_CREATE_SUNSET;
}

/** The `deprecation` object of a create accepted from an older client. */
export function legacyCreateDeprecation(missing: string[]) {
  return {
    missing,
    deprecatedSince: LEGACY_CREATE_DEPRECATED_AT.toISOString(),
    sunset: LEGACY_CREATE_SUNSET.toISOString(),
    message: `Creates without ${missing.join(", ")} stop being accepted on ${
      LEGACY_CREATE_SUNSET.toISOString().slice(0, 10)
    }: send expectedFiles, doneDefinition, verificationCommand and riskClass`,
  };
}

/**
 * The refusal of a create body that failed validation: without agent-first fields, the
 * ADD_REQUIRED_FIELDS refusal (its other field errors alongside); otherwise the first field's 400.
 */
export function createRefusal(raw: unknown, missing: string[], fields: FieldError[]): DomainError {
  if (missing.length > 0) {
    return agentFirstRefusal(
      raw,
      missing,
      fields.filter((f) => !missing.includes(f.path.split(".")[0] ?? "")),
    );
  }
  const first = fields[0];
  return fail.validation(first ? `Invalid ${first.path}: ${first.message}` : "Validation failed", {
    target: "json",
    fields,
  });
}

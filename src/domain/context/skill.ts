import { SKILL_DOCUMENT } from "@/domain/core/pairing-context.ts";
import { skillVersion } from "./agent-state.ts";

export const SKILL_TITLE = "Working with the coordination service";

/** GET /skill (TKT-196 design): the agent skill document at the version GET /context reports. */
export async function readSkill(publicUrl: string) {
  return {
    version: await skillVersion(),
    title: SKILL_TITLE,
    mediaType: "text/markdown" as const,
    content: SKILL_DOCUMENT,
    totalChars: Array.from(SKILL_DOCUMENT).length,
    docsUrl: `${publicUrl}/docs`,
  };
}

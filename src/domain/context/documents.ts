import { SKILL_DOCUMENT } from "@/domain/core/pairing-context.ts";
import { cutChars } from "./brief.ts";

/** Characters of each document preview (CTX-029). */
export const DOCUMENT_PREVIEW_CHARS = 8_000;

export interface ContextDocument {
  id: string;
  kind: "skill" | "project";
  title: string;
  url: string | null;
  contentText: string | null;
  totalChars: number;
  truncated: boolean;
}

/**
 * Documents shown in context (CTX-031 design): the skill document (how to work with the service), then
 * the project's documents, kept in the brief as `custom.documents: [{ title, content | text, url? }]`
 * (at most 10). Each carries a preview of at most 8,000 characters; compact mode sends `contentText: null`.
 */
export function contextDocuments(
  brief: Record<string, unknown>,
  compact: boolean,
  publicUrl: string,
): ContextDocument[] {
  const docs: Array<
    { id: string; kind: "skill" | "project"; title: string; url: string | null; text: string }
  > = [
    {
      id: "skill",
      kind: "skill",
      title: "Working with the coordination service",
      url: `${publicUrl}/docs`,
      text: SKILL_DOCUMENT,
    },
  ];
  const custom = brief.custom;
  const listed = custom && typeof custom === "object" && !Array.isArray(custom)
    ? (custom as Record<string, unknown>).documents
    : undefined;
  if (Array.isArray(listed)) {
    listed.slice(0, 10).forEach((item, i) => {
      if (!item || typeof item !== "object") return;
      const d = item as Record<string, unknown>;
      const text = typeof d.content === "string" ? d.content : typeof d.text === "string" ? d.text : "";
      docs.push({
        id: `project-${i + 1}`,
        kind: "project",
        title: typeof d.title === "string" ? d.title : `Document ${i + 1}`,
        url: typeof d.url === "string" ? d.url : null,
        text,
      });
    });
  }
  return docs.map((d) => {
    const preview = cutChars(d.text, DOCUMENT_PREVIEW_CHARS);
    return {
      id: d.id,
      kind: d.kind,
      title: d.title,
      url: d.url,
      contentText: compact ? null : preview.text,
      totalChars: Array.from(d.text).length,
      truncated: preview.cut,
    };
  });
}

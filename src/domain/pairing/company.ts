/** Company inferred from a platform name when pairing omits it (documented design, PAIR-016). */
const COMPANIES: Array<[RegExp, string]> = [
  [/claude|anthropic/i, "Anthropic"],
  [/codex|openai|chatgpt|gpt/i, "OpenAI"],
  [/gemini|google|jules/i, "Google"],
  [/copilot|github/i, "GitHub"],
  [/cursor/i, "Anysphere"],
  [/windsurf|codeium/i, "Codeium"],
  [/devin|cognition/i, "Cognition"],
  [/amazon|\bq\b|kiro/i, "Amazon"],
  [/mistral/i, "Mistral AI"],
];

export function inferCompany(platform: string | null | undefined): string | null {
  if (!platform) return null;
  for (const [pattern, company] of COMPANIES) if (pattern.test(platform)) return company;
  return null;
}

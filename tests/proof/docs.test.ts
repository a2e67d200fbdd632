import assert from "node:assert/strict";
import { EXTENSION_RECOVERY_ACTIONS } from "@/domain/core/errors.ts";
import { call, newProject, pairAgent, test } from "../helpers/mod.ts";

const ROOT = new URL("../../", import.meta.url);

test("PROOF-5 the OpenAPI document shows the fence, verify, coverage and their codes as extensions", async () => {
  const doc = JSON.parse(await Deno.readTextFile(new URL("openapi/openapi.json", ROOT)));
  const text = JSON.stringify(doc);
  for (const code of ["FENCE_STALE", "COVERAGE_INCOMPLETE", "RECLAIM_FILES", "CLAIM_FILES"]) {
    assert.ok(text.includes(code), code);
  }
  assert.ok((EXTENSION_RECOVERY_ACTIONS as readonly string[]).includes("RECLAIM_FILES"));
  assert.ok((EXTENSION_RECOVERY_ACTIONS as readonly string[]).includes("CLAIM_FILES"));
  const paths = Object.keys(doc.paths);
  const verify = paths.find((p) => p.endsWith("/claim/verify"));
  assert.ok(verify, paths.join(", "));
  assert.ok(doc.paths[verify].post.requestBody.content["application/json"].example);
  assert.ok(doc.components.schemas.Claim.properties.fence);
  assert.ok(doc.components.schemas.ClaimCheckItem.properties.fence);
  assert.ok(doc.components.schemas.HandoffRequest.properties.changedFiles);
  assert.ok(doc.components.schemas.HandoffResult.properties.coverage);
  // Without the new fields the spec's answers are unchanged: none of them is required.
  for (const name of ["Claim", "ClaimCheckItem", "HandoffRequest", "HandoffResult"]) {
    const required: string[] = doc.components.schemas[name].required ?? [];
    assert.ok(
      !required.includes("fence") && !required.includes("changedFiles") && !required.includes("coverage"),
    );
  }
});

test("PROOF-5 GET /skill and the README show the fence, verify, hooks and coverage", async () => {
  const { projectId } = await newProject();
  const agent = await pairAgent(projectId);
  const skill = await call("GET", "/skill", { token: agent.token });
  assert.equal(skill.status, 200, skill.text);
  const content: string = skill.body.data.content;
  for (const word of ["fence", "FENCE_STALE", "/api/claim/verify", "hooks install", "changedFiles"]) {
    assert.ok(content.includes(word), word);
  }
  const readme = await Deno.readTextFile(new URL("README.md", ROOT));
  assert.match(readme, /^## Gate commits and pushes with claims$/m);
  for (
    const word of [
      "SVC_GATE_OFFLINE=allow",
      "--claude-code",
      "requireClaimCoverage",
      "POST /api/claim/verify",
    ]
  ) {
    assert.ok(readme.includes(word), word);
  }
  assert.match(readme, /push refused[\s\S]*\[new branch\]\s+main -> main/, "a refused then accepted push");
});

import assert from "node:assert/strict";
import { type RefreshableToken, refreshMode } from "@/domain/sessions/refresh.ts";
import { DomainError } from "@/domain/core/errors.ts";
import { statusOf } from "@/http/errors.ts";
import { test } from "../helpers/mod.ts";

const now = new Date("2026-05-10T12:00:00Z");
const DAY = 24 * 3600_000;
const ago = (ms: number) => new Date(now.getTime() - ms);

function token(over: Partial<RefreshableToken> = {}): RefreshableToken {
  return {
    tokenId: "t",
    expiresAt: new Date(now.getTime() + DAY),
    idleExpiresAt: null,
    revokedAt: null,
    agentId: "a",
    agentName: "gen",
    role: "generator",
    agentStatus: "active",
    projectId: "p",
    projectStatus: "active",
    orgStatus: "active",
    sessionId: "s",
    sessionStatus: "active",
    ...over,
  };
}

const cannot = (e: unknown) => e instanceof DomainError && statusOf(e) === 401 && e.code === "UNAUTHORIZED";

test("SESS-028 refreshMode(): live before expiry, grace up to 7 days after the earlier of hard and idle expiry", () => {
  assert.equal(refreshMode(token(), now), "live");
  assert.equal(refreshMode(token({ expiresAt: null }), now), "live");
  assert.equal(refreshMode(token({ expiresAt: ago(6 * DAY) }), now), "grace");
  assert.equal(refreshMode(token({ idleExpiresAt: ago(DAY) }), now), "grace", "the idle expiry counts too");
  assert.equal(refreshMode(token({ expiresAt: ago(7 * DAY) }), now), "grace");
});

test("SESS-029 refreshMode(): revoked, too old or ineligible tokens get the one refusal", () => {
  assert.throws(() => refreshMode(token({ expiresAt: ago(7 * DAY + 1) }), now), cannot);
  assert.throws(() => refreshMode(token({ revokedAt: ago(1) }), now), cannot);
  assert.throws(() => refreshMode(token({ agentStatus: "revoked" }), now), cannot);
  assert.throws(() => refreshMode(token({ projectStatus: "archived" }), now), cannot);
  assert.throws(() => refreshMode(token({ orgStatus: "suspended" }), now), cannot);
  assert.throws(() => refreshMode(token({ sessionStatus: "complete" }), now), cannot);
});

import assert from "node:assert/strict";
import { ciStatusOf, paginated } from "@/domain/tickets/read.ts";
import { test } from "../helpers/mod.ts";

test("TKT-129 paginated() wraps a list as { data, pagination } only for paginate=v2", () => {
  assert.deepEqual(paginated({ limit: 2, offset: 0 }, ["a", "b"], 5), ["a", "b"]);
  assert.deepEqual(paginated({ limit: 2, offset: 2, paginate: "v2" }, ["c", "d"], 5), {
    data: ["c", "d"],
    pagination: { total: 5, limit: 2, offset: 2, hasMore: true },
  });
  assert.deepEqual(paginated({ limit: 2, offset: 4, paginate: "v2" }, ["e"], 5), {
    data: ["e"],
    pagination: { total: 5, limit: 2, offset: 4, hasMore: false },
  });
});

test("TKT-127 ciStatusOf() takes the newest artifact reporting a known CI word", () => {
  const at = new Date("2026-01-02T03:04:05Z");
  const row = (metadata: Record<string, unknown>, url = "https://x/pr/1") => ({
    url,
    type: "pull_request",
    metadata,
    updated_at: at,
  });
  assert.deepEqual(ciStatusOf([]), { state: "unknown", source: null, url: null, updatedAt: null });
  assert.deepEqual(ciStatusOf([row({ ciStatus: "weird" }), row({ ciStatus: "GREEN" })]), {
    state: "passing",
    source: "pull_request",
    url: "https://x/pr/1",
    updatedAt: at.toISOString(),
  });
  const nested = ciStatusOf([
    row({ ci: { status: "running", url: "https://ci/1" } }),
    row({ ciStatus: "failed" }),
  ]);
  assert.equal(nested.state, "pending");
  assert.equal(nested.url, "https://ci/1");
});

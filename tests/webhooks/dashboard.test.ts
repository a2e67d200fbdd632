import assert from "node:assert/strict";
import { test } from "../helpers/mod.ts";
import type { TestEnv } from "../helpers/env.ts";
import { dashFixture, PASSWORD } from "../dashboard/helpers.ts";
import { hookEnv } from "./helpers.ts";

/** A browser-like client: keeps cookies, reads CSRF tokens from pages. */
class Browser {
  cookies = new Map<string, string>();
  constructor(readonly e: TestEnv) {}
  async req(method: string, path: string, form?: Record<string, string>) {
    const headers: Record<string, string> = {};
    if (this.cookies.size) headers.Cookie = [...this.cookies].map(([k, v]) => `${k}=${v}`).join("; ");
    if (form) headers["Content-Type"] = "application/x-www-form-urlencoded";
    const res = await this.e.fetch(path, {
      method,
      headers,
      body: form ? new URLSearchParams(form).toString() : null,
      redirect: "manual",
    });
    for (const c of res.headers.getSetCookie()) {
      const [k, v] = c.split(";")[0]!.split("=");
      if (/Max-Age=0/i.test(c) || v === "") this.cookies.delete(k!);
      else this.cookies.set(k!, v!);
    }
    return { status: res.status, headers: res.headers, text: await res.text() };
  }
  static csrf(html: string): string {
    return /name="csrf_token" value="([^"]+)"/.exec(html)?.[1] ?? "";
  }
  async signIn(email: string) {
    const form = await this.req("GET", "/");
    await this.req("POST", "/signin", { csrf_token: Browser.csrf(form.text), email, password: PASSWORD });
  }
}

test("PUSH-1 project admins manage webhooks on the dashboard (settings); members and viewers do not see the page", async () => {
  const e = await hookEnv();
  const f = await dashFixture(e);
  const path = `/projects/${f.projectId}/settings/webhooks`;
  const member = new Browser(e);
  await member.signIn(f.users.member.email);
  assert.equal((await member.req("GET", path)).status, 404);

  const admin = new Browser(e);
  await admin.signIn(f.users.admin.email);
  const empty = await admin.req("GET", path);
  assert.equal(empty.status, 200);
  const csrf = Browser.csrf(empty.text);
  const made = await admin.req("POST", path, {
    csrf_token: csrf,
    url: "https://93.184.216.34/hook",
    events: "ticket.*, claim.acquired",
    description: "board bot",
  });
  assert.equal(made.status, 200);
  assert.match(made.text, /whsec_[A-Za-z0-9+/=]+/);
  const listed = await admin.req("GET", path);
  assert.match(listed.text, /https:\/\/93\.184\.216\.34\/hook/);
  assert.match(listed.text, /ticket\.\*, claim\.acquired/);
  assert.doesNotMatch(listed.text, /whsec_/);
  const id = /settings\/webhooks\/([0-9a-f-]{36})"/.exec(listed.text)![1]!;
  const disabled = await admin.req("POST", `${path}/${id}/disable`, { csrf_token: csrf });
  assert.equal(disabled.status, 303);
  assert.match((await admin.req("GET", path)).text, /disabled \(operator\)/);
  const deliveries = await admin.req("GET", `${path}/${id}`);
  assert.equal(deliveries.status, 200);
  assert.match(deliveries.text, /No deliveries yet/);
  const refused = await admin.req("POST", path, { csrf_token: csrf, url: "https://10.0.0.1/", events: "*" });
  assert.match(refused.text, /WEBHOOK_URL_REFUSED/);
});

// A browser-like client for dashboard tests without a browser: keeps cookies, signs in with the form.
import type { TestEnv } from "../helpers/env.ts";
import { PASSWORD } from "./helpers.ts";

export class PageClient {
  cookies = new Map<string, string>();
  constructor(readonly e: TestEnv) {}
  async req(method: string, path: string, form?: Record<string, string>) {
    const h: Record<string, string> = {};
    if (this.cookies.size) h.Cookie = [...this.cookies].map(([k, v]) => `${k}=${v}`).join("; ");
    let body: string | null = null;
    if (form) {
      body = new URLSearchParams(form).toString();
      h["Content-Type"] = "application/x-www-form-urlencoded";
    }
    const res = await this.e.fetch(path, { method, headers: h, body, redirect: "manual" });
    for (const c of res.headers.getSetCookie()) {
      const [pair] = c.split(";");
      const [k, v] = pair!.split("=");
      if (/Max-Age=0/i.test(c) || v === "") this.cookies.delete(k!);
      else this.cookies.set(k!, v!);
    }
    return { status: res.status, headers: res.headers, text: await res.text() };
  }
  async signIn(email: string) {
    const form = await this.req("GET", "/");
    const csrf = /name="csrf_token" value="([^"]+)"/.exec(form.text)?.[1] ?? "";
    const res = await this.req("POST", "/signin", { csrf_token: csrf, email, password: PASSWORD });
    if (res.status !== 303) throw new Error(`sign-in failed: ${res.status}`);
  }
}

import assert from "node:assert/strict";
import { call, env, newProject, test } from "../helpers/mod.ts";
import { ADMIN_TOKEN } from "../helpers/env.ts";
import { checkDestination, classifyAddress, DestinationRefused } from "@/domain/webhooks/address.ts";
import { createEndpoint } from "@/domain/webhooks/endpoints.ts";
import { deliverDueWebhooks } from "@/domain/webhooks/deliver.ts";
import { recordEvent } from "@/domain/core/record-event.ts";
import { adminOn, receiver } from "./helpers.ts";

const create = (projectId: string, body: unknown) =>
  call("POST", `/admin/projects/${projectId}/webhooks`, { token: ADMIN_TOKEN, body });

test("PUSH-1 operators create, list, read, update, disable, enable and delete endpoints; the secret is shown once", async () => {
  const { projectId } = await newProject();
  const made = await create(projectId, {
    url: "https://93.184.216.34/hooks",
    events: ["claim.*", "ticket.moved"],
    description: "chat bot",
  });
  assert.equal(made.status, 201, made.text);
  const hook = made.body.data;
  assert.match(hook.secret, /^whsec_[A-Za-z0-9+/]+=*$/);
  assert.deepEqual(hook.events, ["claim.*", "ticket.moved"]);
  const base = `/projects/${projectId}/webhooks`;
  const listed = await adminOn(await env(), "GET", base);
  assert.equal(listed.length, 1);
  assert.equal(listed[0].secret, undefined);
  const read = await adminOn(await env(), "GET", `${base}/${hook.id}`);
  assert.equal(read.description, "chat bot");
  const changed = await adminOn(await env(), "PATCH", `${base}/${hook.id}`, { events: ["*"] });
  assert.deepEqual(changed.events, ["*"]);
  assert.equal((await adminOn(await env(), "POST", `${base}/${hook.id}/disable`)).enabled, false);
  assert.equal((await adminOn(await env(), "POST", `${base}/${hook.id}/enable`)).enabled, true);
  await adminOn(await env(), "DELETE", `${base}/${hook.id}`);
  const gone = await call("GET", `/admin${base}/${hook.id}`, { token: ADMIN_TOKEN });
  assert.equal(gone.status, 404);
  const badKind = await create(projectId, { url: "https://93.184.216.34/", events: ["claim.*.x"] });
  assert.equal(badKind.status, 400);
});

test("PUSH-1 URLs that are not https or point at the service's own network are refused (422 WEBHOOK_URL_REFUSED)", async () => {
  const { projectId } = await newProject();
  for (
    const url of [
      "http://93.184.216.34/",
      "https://127.0.0.1/",
      "https://localhost:8443/",
      "https://[::1]/",
      "https://10.1.2.3/",
      "https://172.20.0.1/",
      "https://192.168.1.10/",
      "https://[fd12:3456::1]/",
      "https://169.254.10.1/",
      "https://[fe80::1]/",
      "https://169.254.169.254/latest/meta-data",
      "https://[fd00:ec2::254]/",
      "https://[::ffff:10.0.0.1]/",
      "https://metadata.google.internal/",
    ]
  ) {
    const res = await create(projectId, { url, events: ["*"] });
    assert.equal(res.status, 422, `${url}: ${res.status} ${res.text}`);
    assert.equal(res.body.error.code, "WEBHOOK_URL_REFUSED", url);
  }
});

test("PUSH-1 a name resolving to a private address is refused; loopback mode allows http and loopback only", async () => {
  const privateName = { allowLoopback: false, resolve: () => Promise.resolve(["93.184.216.34", "10.0.0.7"]) };
  await assert.rejects(checkDestination("https://hooks.example.com/", privateName), DestinationRefused);
  const publicName = { allowLoopback: false, resolve: () => Promise.resolve(["93.184.216.34"]) };
  assert.deepEqual(await checkDestination("https://hooks.example.com/", publicName), ["93.184.216.34"]);
  const loopback = { allowLoopback: true, resolve: () => Promise.resolve(["127.0.0.1"]) };
  assert.deepEqual(await checkDestination("http://receiver.test/", loopback), ["127.0.0.1"]);
  for (const ip of ["10.0.0.1", "169.254.169.254", "fd00:ec2::254", "fe80::2", "192.168.0.1"]) {
    const name = { allowLoopback: true, resolve: () => Promise.resolve([ip]) };
    await assert.rejects(checkDestination("http://receiver.test/", name), DestinationRefused, ip);
  }
  assert.equal(classifyAddress("93.184.216.34"), null);
  assert.equal(classifyAddress("2606:4700::1111"), null);
  assert.equal(classifyAddress("::ffff:127.0.0.1"), "loopback");
});

test("PUSH-1 the destination is checked again at each delivery: a name that now resolves to a private address is not sent", async () => {
  const e = await env();
  const { projectId } = await newProject();
  let resolved = ["93.184.216.34"];
  const destinations = { allowLoopback: false, resolve: () => Promise.resolve(resolved) };
  const hook = await createEndpoint({ db: e.db, clock: e.clock, destinations }, { projectId }, {
    url: "https://hooks.example.com/x",
    events: ["*"],
  });
  await e.db.transaction().execute((trx) =>
    recordEvent(trx, {
      projectId,
      kind: "brief.updated",
      entityType: "project",
      entityId: projectId,
      agentId: null,
      data: {},
      now: e.clock.now(),
    })
  );
  resolved = ["10.0.0.9"];
  let sent = 0;
  const fetchStub = () => {
    sent++;
    return Promise.resolve(new Response(null, { status: 204 }));
  };
  await deliverDueWebhooks({ db: e.db, clock: e.clock, destinations, fetch: fetchStub as typeof fetch });
  assert.equal(sent, 0);
  const deliveries = await adminOn(
    await env(),
    "GET",
    `/projects/${projectId}/webhooks/${hook.id}/deliveries`,
  );
  assert.equal(deliveries[0].status, "pending");
  assert.match(deliveries[0].lastError, /destination refused: .*private/);
});

test("PUSH-1 a redirect is not followed", async () => {
  const e = await env();
  const { projectId } = await newProject();
  const target = receiver();
  const redirecting = Deno.serve(
    { hostname: "127.0.0.1", port: 0, onListen: () => {} },
    () => new Response(null, { status: 307, headers: { location: target.url } }),
  );
  try {
    const destinations = { allowLoopback: true };
    const hook = await createEndpoint({ db: e.db, clock: e.clock, destinations }, { projectId }, {
      url: `http://127.0.0.1:${redirecting.addr.port}/hook`,
      events: ["*"],
    });
    await e.db.transaction().execute((trx) =>
      recordEvent(trx, {
        projectId,
        kind: "brief.updated",
        entityType: "project",
        entityId: projectId,
        agentId: null,
        data: {},
        now: e.clock.now(),
      })
    );
    await deliverDueWebhooks({ db: e.db, clock: e.clock, destinations });
    assert.equal(target.calls(), 0);
    const deliveries = await adminOn(
      await env(),
      "GET",
      `/projects/${projectId}/webhooks/${hook.id}/deliveries`,
    );
    assert.equal(deliveries[0].lastStatus, 307);
    assert.equal(deliveries[0].status, "pending");
  } finally {
    await target.close();
    await redirecting.shutdown();
  }
});

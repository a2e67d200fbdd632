import { createApp } from "@/app.ts";
import { systemClock } from "@/clock.ts";
import { readConfig } from "@/config.ts";
import { openDatabase } from "@/db/dialect.ts";
import { migrateToLatest } from "@/db/migrate.ts";
import { ADMIN_TOKEN_FILE, ensureDemo, resolveAdminToken } from "@/bootstrap.ts";
import { startBackgroundWork } from "@/worker.ts";

const config = readConfig(Deno.env.toObject());
const clock = systemClock();
const { db, engine, close } = await openDatabase(config.databaseUrl, config.dataDir);
await migrateToLatest(db);
const adminToken = await resolveAdminToken(db, config, clock);
const embedded = engine === "pglite";
const demo = embedded && !config.noDemo ? await ensureDemo(db, clock) : null;
const app = createApp({ db, engine, clock, config: { ...config, adminToken } });
const stopWork = startBackgroundWork({ db, clock });

const server = Deno.serve({
  port: config.port,
  hostname: config.host,
  onListen: ({ hostname, port }) => {
    console.log(`listening on http://${hostname}:${port} (public ${config.publicUrl}, ${engine})`);
    if (adminToken && !config.adminToken) {
      console.log(`admin token: ${adminToken} (kept in ${config.dataDir}/${ADMIN_TOKEN_FILE})`);
    }
    if (demo) {
      console.log(
        demo.password
          ? `demo project: Demo (DEMO), sign in as ${demo.email} / ${demo.password} (shown only now)`
          : `demo project: Demo (DEMO), sign in as ${demo.email} (password printed at first start)`,
      );
      console.log(`demo pairing code: ${demo.pairingCode} (expires ${demo.codeExpiresAt})`);
      console.log(
        `pair: curl -s -X POST ${config.publicUrl}/api/pair/connect -H 'Content-Type: application/json' ` +
          `-d '{"code":"${demo.pairingCode}","agentName":"my-agent"}'`,
      );
    }
  },
}, app.fetch);

const shutdown = async () => {
  stopWork();
  await server.shutdown();
  await close();
  Deno.exit(0);
};
Deno.addSignalListener("SIGINT", shutdown);
if (Deno.build.os !== "windows") Deno.addSignalListener("SIGTERM", shutdown);

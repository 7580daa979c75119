import { test } from "bun:test";
import { ROOT, startServe } from "./serve-process";
import { startRedis } from "./http/redis-server";
import { sharedStoreEnv } from "./backends";
test("scratch", async () => {
  const redis = await startRedis();
  const serve = await startServe([process.execPath, `${ROOT}/cli/main.ts`], { ...(await sharedStoreEnv()), REDIS_URL: redis.url, LOG_LEVEL: "info" });
  const key = serve.makeKey(["render:create", "render:read"]);
  console.log(await serve.call("/v1/renders", key, { html: "<p>a</p>" }));
  await redis.stop();
  await Bun.sleep(500);
  for (let i = 0; i < 3; i++) {
    try { const r = await serve.call("/v1/renders", key, { html: "<p>b</p>" }); console.log(r.status, JSON.stringify(r.body).slice(0, 200)); } catch (e) { console.log("ERR", String(e)); }
    await Bun.sleep(300);
  }
  serve.proc.kill("SIGKILL");
  await serve.proc.exited;
  console.log("exit", serve.proc.exitCode);
  const out = (await new Response(serve.proc.stdout).text()) + (await new Response(serve.proc.stderr).text());
  console.log(out.slice(-4000));
}, 60000);

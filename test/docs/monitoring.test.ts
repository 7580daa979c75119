/** monitoring: every metric and label docs/monitoring's Grafana dashboard and Prometheus alert rules read is one the
 * running server's /metrics serves — names from the scrape, label names from the registry behind it, and each label
 * value a query matches on seen in the scrape once renders succeeded and failed and a webhook was delivered. */
import { afterAll, beforeAll, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { ok, startTestServer, type TestServer } from "../harness";
import { RECEIVER_ENV } from "../webhooks/receiver";

const DOCS = resolve(import.meta.dir, "../../docs/monitoring");
// Prometheus adds these to every series it scrapes (and `up` for each target); /metrics cannot serve them.
const TARGET_LABELS = new Set(["instance", "job"]);
const SYNTHETIC = new Set(["up"]);

let t: TestServer;
let scrape = "";
const receiver = Bun.serve({ hostname: "127.0.0.1", port: 0, fetch: () => new Response(null, { status: 204 }) });

beforeAll(async () => {
  t = await startTestServer({ ...RECEIVER_ENV, RENDER_WORKERS: "1" });
  const key = await t.makeKey(t.defaultWorkspaceId, ["render:create", "render:read", "webhook:manage"]);
  ok(await t.call("/v1/webhook-endpoints", { key, body: { url: `http://127.0.0.1:${receiver.port}/in`, eventTypes: ["render.succeeded", "render.failed"] } }), 201);
  expect(ok(await t.call("/v1/renders?wait=30", { key, body: { html: "<p>ok</p>" } }), 200).status).toBe("succeeded");
  const failed = await t.call("/v1/renders?wait=30", { key, body: { html: '<img src="https://example.com/x.png">', failOnBlockedResources: true } });
  expect(failed.body.status ?? failed.body.error?.code).toMatch(/failed|RENDER_FAILED/);
  await t.server.webhooks.runOnce();
  scrape = await (await fetch(`${t.internalUrl}/metrics`)).text();
});
afterAll(async () => {
  await t?.stop();
  receiver.stop(true);
});

/** served answers each family /metrics declares, with its label names (from the registry) and the values seen per label. */
function served(): Map<string, { labels: Set<string>; values: Map<string, Set<string>> }> {
  const families = new Map<string, { labels: Set<string>; values: Map<string, Set<string>> }>();
  for (const m of scrape.matchAll(/^# TYPE (\S+) (\S+)$/gm)) {
    const [name, type] = [m[1]!, m[2]!];
    const labels = new Set((t.server.metrics.registry.getSingleMetric(name) as unknown as { labelNames?: string[] } | undefined)?.labelNames ?? []);
    const names = type === "histogram" ? [`${name}_bucket`, `${name}_sum`, `${name}_count`] : [name];
    for (const n of names) families.set(n, { labels: n.endsWith("_bucket") ? new Set([...labels, "le"]) : labels, values: new Map() });
  }
  for (const m of scrape.matchAll(/^([a-zA-Z_:][\w:]*)\{([^}]*)\} /gm)) {
    const family = families.get(m[1]!);
    for (const pair of m[2]!.matchAll(/(\w+)="([^"]*)"/g)) {
      const values = family?.values.get(pair[1]!) ?? new Set<string>();
      values.add(pair[2]!);
      family?.values.set(pair[1]!, values);
    }
  }
  return families;
}

/** problems answers what a PromQL expression reads that /metrics does not serve. */
function problems(expr: string, where: string): string[] {
  const families = served();
  const found: string[] = [];
  const used = new Set<string>();
  for (const m of expr.matchAll(/\b((?:renderd|process|nodejs)_\w+|up)\b(\{([^}]*)\})?/g)) {
    const name = m[1]!;
    used.add(name);
    const family = families.get(name);
    if (SYNTHETIC.has(name)) continue;
    if (!family) {
      found.push(`${where}: metric ${name} is not served`);
      continue;
    }
    for (const matcher of (m[3] ?? "").matchAll(/(\w+)\s*(=~|!~|!=|=)\s*"([^"]*)"/g)) {
      const [label, op, value] = [matcher[1]!, matcher[2]!, matcher[3]!];
      if (TARGET_LABELS.has(label)) continue;
      if (!family.labels.has(label)) found.push(`${where}: ${name} has no label ${label}`);
      else if (op === "=" && !family.values.get(label)?.has(value)) found.push(`${where}: ${name}{${label}="${value}"} is never served (seen: ${[...(family.values.get(label) ?? [])].join(", ")})`);
    }
  }
  for (const m of expr.matchAll(/\b(?:by|without)\s*\(([^)]*)\)/g))
    for (const label of m[1]!.split(",").map((l) => l.trim()).filter(Boolean)) {
      if (TARGET_LABELS.has(label)) continue;
      if (![...used].some((name) => families.get(name)?.labels.has(label))) found.push(`${where}: no metric of the expression has label ${label}`);
    }
  if (used.size === 0) found.push(`${where}: reads no metric`);
  return found;
}

test("the scrape has what the checks below lean on: renders that succeeded and failed, a webhook attempt", () => {
  expect(scrape).toContain('renderd_renders_total{status="failed",test="false"} 1');
  expect(scrape).toContain('renderd_webhook_deliveries_total{outcome="succeeded"}');
  expect(scrape).toMatch(/^renderd_data_dir_free_bytes \d+/m);
});

test("every query of the Grafana dashboard reads served metrics and labels", () => {
  const dashboard = JSON.parse(readFileSync(join(DOCS, "grafana-dashboard.json"), "utf8")) as { panels: { title: string; targets: { expr: string }[] }[]; templating: { list: { name: string; definition?: string }[] } };
  const queries = [
    ...dashboard.panels.flatMap((p) => p.targets.map((target) => ({ where: `panel "${p.title}"`, expr: target.expr }))),
    ...dashboard.templating.list.filter((v) => v.definition).map((v) => ({ where: `variable ${v.name}`, expr: v.definition! })),
  ];
  expect(queries.length).toBeGreaterThan(15);
  expect(queries.flatMap((q) => problems(q.expr, q.where))).toEqual([]);
  // The five: queue wait, failure rate, browser restarts, webhook backlog, DATA_DIR's free space.
  const all = queries.map((q) => q.expr).join("\n");
  for (const name of ["renderd_render_queue_seconds_bucket", 'status="failed"', "renderd_browser_restarts_total", "renderd_webhook_backlog", "renderd_data_dir_free_bytes"]) expect(all).toContain(name);
});

test("every Prometheus alert rule reads served metrics and labels, and the five alerts are there", () => {
  const rules = Bun.YAML.parse(readFileSync(join(DOCS, "alerts.yml"), "utf8")) as { groups: { rules: { alert: string; expr: string }[] }[] };
  const all = rules.groups.flatMap((g) => g.rules);
  expect(all.flatMap((r) => problems(r.expr, `alert ${r.alert}`))).toEqual([]);
  expect(all.map((r) => r.alert)).toEqual(expect.arrayContaining(["RenderdQueueWaitHigh", "RenderdFailureRateHigh", "RenderdBrowserRestarts", "RenderdWebhookBacklog", "RenderdDataDirLow"]));
});

test("the checker itself refuses a metric, a label and a value that are not served", () => {
  expect(problems('sum by (colour) (renderd_renders_total{status="melted"}) + renderd_nope', "probe")).toEqual([
    'probe: renderd_renders_total{status="melted"} is never served (seen: succeeded, failed)',
    "probe: metric renderd_nope is not served",
    "probe: no metric of the expression has label colour",
  ]);
});

/** metrics: the Prometheus registry of one renderd process (docs/operations.md lists every series). Events are counted
 * where they happen, through the methods below; figures that already exist elsewhere (the pool, the queue, the webhook
 * backlog) are read at scrape time from the sources the server attaches, never counted twice. */
import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from "prom-client";
import type { FinalStatus } from "../store/render-status";

/** PoolFigures is what /metrics reads from the Chromium pool at scrape time (a subset of its stats()). */
export interface PoolFigures {
  idle: number;
  busy: number;
  preparing: number;
  browserRestarts: number;
}

/** MetricSources are read at every scrape; the server attaches them once the pool and store exist. */
export interface MetricSources {
  pool(): PoolFigures;
  /** Renders per non-final state (`queued`, `processing`). */
  queue(): Promise<Record<string, number>>;
  /** Webhook deliveries waiting to be sent or retried. */
  webhookBacklog(): Promise<number>;
  /** Bytes free on DATA_DIR's file system (store/space.ts). */
  dataDirFreeBytes(): number;
  /** PDFs committed in the store and not yet written to the file store (store/output-spool.ts), and their bytes. */
  outputSpool(): Promise<{ pdfs: number; bytes: number }>;
}

/** RenderEnded is one render reaching a final state in this process's worker. */
export interface RenderEnded {
  status: FinalStatus;
  test: boolean;
  /** Seconds from creation to the worker claiming it; absent when it never was claimed. */
  queueSeconds?: number;
  /** Seconds spent printing; absent when it never was printed. */
  renderSeconds?: number;
}

// Renders take from tens of milliseconds (a warm page, a short invoice) to the 30 s default time limit.
const RENDER_BUCKETS = [0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 300];
const HTTP_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 10, 60];

/** UNMATCHED is the route label of a request no route matched (raw paths would make one series per scanner probe). */
export const UNMATCHED = "unmatched";

/** Metrics owns the registry; one instance per process, given to the worker, the dispatcher and the app. */
export class Metrics {
  readonly registry = new Registry();
  private sources?: MetricSources;
  private readonly renders = new Counter({ name: "renderd_renders_total", help: "Renders that reached a final state in this process.", labelNames: ["status", "test"], registers: [this.registry] });
  private readonly queueSeconds = new Histogram({ name: "renderd_render_queue_seconds", help: "Time from a render's creation to a worker taking it.", buckets: RENDER_BUCKETS, registers: [this.registry] });
  private readonly renderSeconds = new Histogram({ name: "renderd_render_seconds", help: "Time spent printing a render on a Chromium page.", buckets: RENDER_BUCKETS, registers: [this.registry] });
  private readonly deliveries = new Counter({ name: "renderd_webhook_deliveries_total", help: "Webhook delivery attempts by outcome: succeeded, retrying, failed (for good).", labelNames: ["outcome"], registers: [this.registry] });
  private readonly requests = new Counter({ name: "renderd_http_requests_total", help: "Requests on the public port by method, route template and status.", labelNames: ["method", "route", "status"], registers: [this.registry] });
  private readonly requestSeconds = new Histogram({ name: "renderd_http_request_duration_seconds", help: "Time to answer a request on the public port.", labelNames: ["method", "route"], buckets: HTTP_BUCKETS, registers: [this.registry] });
  private readonly rateLimits = new Counter({ name: "renderd_rate_limited_total", help: "Requests refused with 429 by reason: address, sign_in, allowance, quota.", labelNames: ["reason"], registers: [this.registry] });

  constructor() {
    const metrics = this;
    collectDefaultMetrics({ register: this.registry });
    new Gauge({
      name: "renderd_queue_depth",
      help: "Renders waiting (queued) and printing (processing).",
      labelNames: ["state"],
      registers: [this.registry],
      async collect() {
        const queue = (await metrics.sources?.queue()) ?? {};
        for (const state of ["queued", "processing"]) this.set({ state }, queue[state] ?? 0);
      },
    });
    new Gauge({
      name: "renderd_pool_pages",
      help: "Chromium pages by state: busy, idle, recycling (being opened, reset or replaced).",
      labelNames: ["state"],
      registers: [this.registry],
      collect() {
        const pool = metrics.sources?.pool();
        this.set({ state: "busy" }, pool?.busy ?? 0);
        this.set({ state: "idle" }, pool?.idle ?? 0);
        this.set({ state: "recycling" }, pool?.preparing ?? 0);
      },
    });
    new Counter({
      name: "renderd_browser_restarts_total",
      help: "Chromium browsers restarted after a crash or hang since start.",
      registers: [this.registry],
      collect() {
        // The pool owns the count; the counter mirrors it at each scrape.
        this.reset();
        this.inc(metrics.sources?.pool().browserRestarts ?? 0);
      },
    });
    new Gauge({
      name: "renderd_webhook_backlog",
      help: "Webhook deliveries pending (waiting to be sent or retried).",
      registers: [this.registry],
      async collect() {
        this.set((await metrics.sources?.webhookBacklog()) ?? 0);
      },
    });
    // Both from one query per scrape: the registry collects every series at once, so the second finds the first's read
    // under way and shares it.
    let spoolRead: Promise<{ pdfs: number; bytes: number }> | undefined;
    const spool = () => (spoolRead ??= (metrics.sources?.outputSpool() ?? Promise.resolve({ pdfs: 0, bytes: 0 })).finally(() => (spoolRead = undefined)));
    for (const [name, field, help] of [
      ["renderd_output_spool_pdfs", "pdfs", "PDFs committed in the store with their render and not yet written to the file store (disk or bucket)."],
      ["renderd_output_spool_bytes", "bytes", "Bytes of the PDFs the store holds until they are written to the file store."],
    ] as const)
      new Gauge({
        name,
        help,
        registers: [this.registry],
        async collect() {
          this.set((await spool())[field]);
        },
      });
    new Gauge({
      name: "renderd_data_dir_free_bytes",
      help: "Bytes free on DATA_DIR's file system; under STORAGE_MIN_FREE_BYTES new renders, uploads and templates answer 503.",
      registers: [this.registry],
      collect() {
        const free = metrics.sources?.dataDirFreeBytes();
        if (free !== undefined) this.set(free);
      },
    });
  }

  /** attach sets what the scrape-time series read. */
  attach(sources: MetricSources): void {
    this.sources = sources;
  }

  /** renderEnded counts a render's final state and observes its times. */
  renderEnded(end: RenderEnded): void {
    this.renders.inc({ status: end.status, test: String(end.test) });
    if (end.queueSeconds !== undefined) this.queueSeconds.observe(Math.max(0, end.queueSeconds));
    if (end.renderSeconds !== undefined) this.renderSeconds.observe(end.renderSeconds);
  }

  /** deliveryAttempt counts one webhook attempt's outcome. */
  deliveryAttempt(outcome: "succeeded" | "retrying" | "failed"): void {
    this.deliveries.inc({ outcome });
  }

  /** request counts one answered request under its route template (UNMATCHED when none matched). */
  request(method: string, route: string, status: number, seconds: number): void {
    this.requests.inc({ method, route, status: String(status) });
    this.requestSeconds.observe({ method, route }, seconds);
  }

  /** rateLimited counts one 429 by its reason. */
  rateLimited(reason: "address" | "sign_in" | "allowance" | "quota"): void {
    this.rateLimits.inc({ reason });
  }

  /** toJSON keeps the metrics out of serialisations of the context they travel in (Elysia checksums a plugin's `seed`
   * with JSON.stringify, and the registry refers to itself). */
  toJSON(): string {
    return "Metrics";
  }

  /** text answers the exposition (Prometheus text format) and its content type. */
  async text(): Promise<{ body: string; contentType: string }> {
    return { body: await this.registry.metrics(), contentType: this.registry.contentType };
  }
}

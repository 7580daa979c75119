/**
 * tracing: OpenTelemetry traces, off unless OTEL_EXPORTER_OTLP_ENDPOINT is set (docs/monitoring/README.md "Traces").
 * One trace per render: the span of the request that made it (a child of the caller's W3C `traceparent` when it sent
 * one); the render's queue wait, print, finishing and store write, under a `render` span the worker opens from the
 * traceparent stored with the render; and each webhook or HTTP destination delivery, which carries its own span's
 * traceparent to the receiver. The rest of renderd calls the few methods of Tracing below and nothing of OpenTelemetry;
 * with tracing off they do nothing and cost nothing but a call.
 */
import { AsyncLocalStorage } from "node:async_hooks";
import { context, SpanKind, SpanStatusCode, trace, type Context, type Span, type Tracer } from "@opentelemetry/api";
import { W3CTraceContextPropagator } from "@opentelemetry/core";
import { OTLPTraceExporter } from "@opentelemetry/exporter-trace-otlp-http";
import { resourceFromAttributes } from "@opentelemetry/resources";
import { BatchSpanProcessor, TracerProvider } from "@opentelemetry/sdk-trace";
import { VERSION } from "../version";

/** Origin is the request a render was made in: its id and its span's traceparent, stored with the render. */
export interface Origin {
  requestId: string;
  traceparent: string;
}

/** RenderSpans are the spans of one render the worker took; `phase` times one step, `end` closes the render's span (the
 * first call counts: a render put back or lost is ended as `not_ended` by the worker's last word). */
export interface RenderSpans {
  phase<T>(name: "render.print" | "render.finish" | "render.store", step: () => Promise<T>): Promise<T>;
  end(status: string, errorCode?: string): void;
}

/** DeliverySpan is one delivery attempt: `headers` carry its traceparent to the receiver; `end` closes it. */
export interface DeliverySpan {
  headers(): Record<string, string>;
  end(error: string | null, statusCode?: number | null): void;
}

/** RenderTraced is what the worker knows of a render when it claims it. */
export interface RenderTraced {
  renderId: string;
  workspaceId: string;
  createdAt: string;
  claimedAt: Date;
  origin: { requestId: string | null; traceparent: string | null } | null;
}

/** Tracing is everything renderd asks of its traces. */
export interface Tracing {
  readonly enabled: boolean;
  /** request answers `handle()` inside the span of one request on the public port; `route` names it once answered. */
  request(request: Request, requestId: string, handle: () => Promise<Response>, route: () => string): Promise<Response>;
  /** origin answers the request the calling code runs for (a render queued now stores it), or null. */
  origin(): Origin | null;
  /** render opens the spans of a render the worker claimed. */
  render(render: RenderTraced): RenderSpans;
  /** delivery opens the span of one webhook or destination attempt for a render whose origin is `traceparent`. */
  delivery(name: "webhook.deliver" | "destination.deliver", traceparent: string | null, attributes: Record<string, string | number>): DeliverySpan;
  /** shutdown sends the spans still buffered. */
  shutdown(): Promise<void>;
}

const NO_SPANS: RenderSpans = { phase: (_name, step) => step(), end() {} };
const NO_DELIVERY: DeliverySpan = { headers: () => ({}), end() {} };

/** noTracing is Tracing turned off: every method does nothing (the default). */
export const noTracing: Tracing = {
  enabled: false,
  request: (_request, _id, handle) => handle(),
  origin: () => null,
  render: () => NO_SPANS,
  delivery: () => NO_DELIVERY,
  shutdown: async () => {},
};

const w3c = new W3CTraceContextPropagator();
const headerGetter = {
  get: (carrier: Headers, key: string) => carrier.get(key) ?? undefined,
  // W3C trace context reads these two only.
  keys: () => ["traceparent", "tracestate"],
};
const recordSetter = { set: (carrier: Record<string, string>, key: string, value: string) => void (carrier[key] = value) };
const recordGetter = {
  get: (carrier: Record<string, string>, key: string) => carrier[key],
  keys: (carrier: Record<string, string>) => Object.keys(carrier),
};

/** traceparentOf answers the W3C traceparent of a span. */
function traceparentOf(span: Span): string {
  const carrier: Record<string, string> = {};
  w3c.inject(trace.setSpan(context.active(), span), carrier, recordSetter);
  return carrier.traceparent ?? "";
}

/** parentOf answers the context whose span is the one a stored traceparent names (the root context without one). */
function parentOf(traceparent: string | null | undefined): Context {
  return traceparent ? w3c.extract(context.active(), { traceparent }, recordGetter) : context.active();
}

function failed(span: Span, message: string): void {
  span.setStatus({ code: SpanStatusCode.ERROR, message });
}

/** OtelTracing exports spans over OTLP/HTTP (JSON) in batches: the SDK's BatchSpanProcessor, every OTEL_BSP_SCHEDULE_DELAY
 * or 512 at a time. */
class OtelTracing implements Tracing {
  readonly enabled = true;
  private readonly provider: TracerProvider;
  private readonly tracer: Tracer;
  // The request a piece of code runs for, across its awaits: a render queued in it stores the request's origin.
  private readonly current = new AsyncLocalStorage<Origin>();

  constructor(endpoint: string, scheduledDelayMillis: number) {
    this.provider = new TracerProvider({
      resource: resourceFromAttributes({ "service.name": "renderd", "service.version": VERSION }),
      spanProcessors: [new BatchSpanProcessor({ exporter: new OTLPTraceExporter({ url: `${endpoint}/v1/traces` }), scheduledDelayMillis })],
    });
    this.tracer = this.provider.getTracer("renderd", VERSION);
  }

  async request(request: Request, requestId: string, handle: () => Promise<Response>, route: () => string): Promise<Response> {
    const parent = w3c.extract(context.active(), request.headers, headerGetter);
    const url = new URL(request.url);
    const span = this.tracer.startSpan(
      `${request.method}`,
      { kind: SpanKind.SERVER, attributes: { "http.request.method": request.method, "url.path": url.pathname, "renderd.request_id": requestId } },
      parent,
    );
    try {
      const response = await this.current.run({ requestId, traceparent: traceparentOf(span) }, handle);
      const template = route();
      span.updateName(`${request.method} ${template}`);
      span.setAttributes({ "http.route": template, "http.response.status_code": response.status });
      if (response.status >= 500) failed(span, `HTTP ${response.status}`);
      return response;
    } finally {
      span.end();
    }
  }

  origin(): Origin | null {
    return this.current.getStore() ?? null;
  }

  render(r: RenderTraced): RenderSpans {
    const attributes = { "renderd.render_id": r.renderId, "renderd.workspace_id": r.workspaceId, ...(r.origin?.requestId ? { "renderd.request_id": r.origin.requestId } : {}) };
    const span = this.tracer.startSpan("render", { startTime: new Date(r.createdAt), attributes }, parentOf(r.origin?.traceparent));
    const inRender = trace.setSpan(context.active(), span);
    this.tracer.startSpan("render.queue_wait", { startTime: new Date(r.createdAt), attributes }, inRender).end(r.claimedAt);
    let ended = false;
    return {
      phase: async (name, step) => {
        const phase = this.tracer.startSpan(name, { attributes }, inRender);
        try {
          return await step();
        } catch (e) {
          failed(phase, (e as Error).message);
          throw e;
        } finally {
          phase.end();
        }
      },
      end: (status, errorCode) => {
        if (ended) return;
        ended = true;
        span.setAttribute("renderd.status", status);
        if (errorCode) failed(span, errorCode);
        span.end();
      },
    };
  }

  delivery(name: string, traceparent: string | null, attributes: Record<string, string | number>): DeliverySpan {
    const span = this.tracer.startSpan(name, { kind: SpanKind.CLIENT, attributes }, parentOf(traceparent));
    return {
      headers: () => ({ traceparent: traceparentOf(span) }),
      end: (error, statusCode) => {
        if (statusCode) span.setAttribute("http.response.status_code", statusCode);
        if (error) failed(span, error);
        span.end();
      },
    };
  }

  shutdown(): Promise<void> {
    return this.provider.shutdown();
  }

  /** toJSON keeps the provider out of serialisations of the context it travels in (Elysia checksums a plugin's `seed`
   * with JSON.stringify, and the provider refers to itself). */
  toJSON(): string {
    return "Tracing";
  }
}

/** startTracing answers the process's Tracing: OTLP/HTTP to `endpoint`, sent every `delayMs`, when one is set; noTracing
 * otherwise. */
export function startTracing(endpoint: string | undefined, delayMs: number): Tracing {
  if (!endpoint) return noTracing;
  return new OtelTracing(endpoint, delayMs);
}

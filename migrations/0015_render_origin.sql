-- 0014_render_origin: when a render's PDF came out of Chromium (the TUI's render timeline: queued, claimed, printed,
-- stored, delivered), and, with tracing on (OTEL_EXPORTER_OTLP_ENDPOINT), the request that made the render — its id and
-- the W3C traceparent of its span — so the worker's and the deliveries' spans join that request's trace.
ALTER TABLE renders ADD COLUMN printed_at TEXT;
ALTER TABLE renders ADD COLUMN request_id TEXT;
ALTER TABLE renders ADD COLUMN traceparent TEXT;

/** docs routes: GET /v1/openapi.json, the OpenAPI 3.1 document of every route, and GET /v1/docs, a readable reference
 * (Swagger UI) served from files built into the binary; both without credentials. */
import { Elysia } from "elysia";
import { Type } from "@sinclair/typebox";
import type { Config } from "../../config";
import { ApiError } from "../../errors";
import { fileResponse, jsonResponse } from "../../http/openapi";
import { openApiDocument, type RouteLike } from "./openapi";
import bundle from "swagger-ui-dist/swagger-ui-bundle.js" with { type: "file" };
import stylesheet from "swagger-ui-dist/swagger-ui.css" with { type: "file" };
import reader from "./reference/reference.js" with { type: "file" };

// Everything the page loads comes from this server: no CDN, no font or image from elsewhere, no inline script.
// Swagger UI sets inline styles and draws its icons from data: URIs.
const CONTENT_SECURITY_POLICY = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self' 'unsafe-inline'",
  "img-src 'self' data:",
  "font-src 'self' data:",
  "connect-src 'self'",
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
].join("; ");

const PAGE = `<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>renderd API reference</title>
<link rel="icon" href="data:,">
<link rel="stylesheet" href="/v1/docs/swagger-ui.css">
</head>
<body>
<div id="reference"></div>
<script src="/v1/docs/swagger-ui-bundle.js"></script>
<script src="/v1/docs/reference.js"></script>
</body>
</html>
`;

const FILES = new Map([
  ["swagger-ui-bundle.js", { path: bundle, type: "text/javascript; charset=utf-8" }],
  ["swagger-ui.css", { path: stylesheet, type: "text/css; charset=utf-8" }],
  ["reference.js", { path: reader, type: "text/javascript; charset=utf-8" }],
]);

const FileParams = Type.Object({ file: Type.String({ minLength: 1, maxLength: 64 }) }, { additionalProperties: false });

function answer(body: BodyInit, type: string, extra: Record<string, string> = {}): Response {
  return new Response(body, { headers: { "content-type": type, "x-content-type-options": "nosniff", "cache-control": "public, max-age=3600", ...extra } });
}

/** docsRoutes mounts the document and the reference; `routes` is the app's route table, read once on the first request. */
export function docsRoutes(config: Pick<Config, "publicUrl" | "sessionCookieName">, routes: () => readonly RouteLike[]) {
  let document: string | null = null;
  return new Elysia({ normalize: false })
    .get(
      "/v1/openapi.json",
      () => new Response((document ??= JSON.stringify(openApiDocument(routes(), config))), { headers: { "content-type": "application/json" } }),
      { detail: { description: "This document: OpenAPI 3.1, made from the schemas the routes validate with.", responses: { 200: jsonResponse("The OpenAPI document", Type.Object({ openapi: Type.String() })) } } },
    )
    .get("/v1/docs", () => answer(PAGE, "text/html; charset=utf-8", { "content-security-policy": CONTENT_SECURITY_POLICY }), {
      detail: { description: "A readable reference of this API, drawn from /v1/openapi.json.", responses: { 200: fileResponse("The reference page", ["text/html"]) } },
    })
    .get(
      "/v1/docs/:file",
      ({ params }) => {
        const file = FILES.get(params.file);
        if (!file) throw new ApiError("NOT_FOUND", `The reference has no file ${params.file}; open /v1/docs.`);
        return answer(Bun.file(file.path), file.type);
      },
      { params: FileParams, detail: { description: "A script or stylesheet of the reference page.", responses: { 200: fileResponse("The file", ["text/javascript", "text/css"]) } } },
    );
}

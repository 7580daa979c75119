// The reader of /v1/docs: Swagger UI over this server's own OpenAPI document. A file rather than an inline script, so
// the page's Content-Security-Policy needs no 'unsafe-inline' for scripts; validatorUrl null keeps the page from
// sending the document to swagger.io's validator.
window.ui = SwaggerUIBundle({
  url: "/v1/openapi.json",
  dom_id: "#reference",
  deepLinking: true,
  validatorUrl: null,
  presets: [SwaggerUIBundle.presets.apis],
  layout: "BaseLayout",
});

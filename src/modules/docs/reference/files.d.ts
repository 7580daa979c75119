// Files embedded with `import … with { type: "file" }`: the import is the file's path (in the compiled binary, inside
// its own file system).
declare module "swagger-ui-dist/swagger-ui-bundle.js" {
  const path: string;
  export default path;
}
declare module "swagger-ui-dist/swagger-ui.css" {
  const path: string;
  export default path;
}
declare module "*/reference.js" {
  const path: string;
  export default path;
}

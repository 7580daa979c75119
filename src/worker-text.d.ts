// A worker's code imported as text (`with { type: "text" }`) to start it from a Blob (store/files-disk-batch.ts).
declare module "*.worker.js" {
  const text: string;
  export default text;
}

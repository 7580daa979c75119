/** durable-put: one DiskFiles.put of a PDF's bytes in DATA_DIR (argv[2]), or with `many` (argv[3]) one putMany of two,
 * run under strace by files-durable.test.ts; prints the sha256 of each. */
import { sha256Hex } from "../../src/lib/hash";
import { DiskFiles } from "../../src/store/files-disk";

const files = new DiskFiles(process.argv[2]!);
if (process.argv[3] === "many") {
  const batch = ["first", "second"].map((name) => new TextEncoder().encode(`%PDF-1.7 ${name} traced bytes\n%%EOF\n`)).map((bytes) => ({ sha256: sha256Hex(bytes), bytes }));
  await files.putMany("outputs", "rnd_traced", batch);
  await files.close();
  console.log(batch.map((file) => file.sha256).join("\n"));
} else console.log(await files.put("outputs", "rnd_traced", new TextEncoder().encode("%PDF-1.7 traced bytes\n%%EOF\n")));

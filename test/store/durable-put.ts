/** durable-put: one DiskFiles.put of a PDF's bytes in DATA_DIR (argv[2]), run under strace by files-durable.test.ts. */
import { DiskFiles } from "../../src/store/files-disk";

const files = new DiskFiles(process.argv[2]!);
console.log(await files.put("outputs", "rnd_traced", new TextEncoder().encode("%PDF-1.7 traced bytes\n%%EOF\n")));

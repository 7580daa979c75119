/** templates/starter-pdf: each starter printed with its sample data, the PDF the console shows a thumbnail of when a
 * template is begun. The starters are part of the executable, so each is printed once per process, on first request,
 * and kept (a few tens of kB each); it is renderd's own sample, in no workspace, and counts against no allowance. */
import type { RenderWorker } from "../../render/worker";
import { templateJob } from "../../render/job";
import type { StarterId } from "./model";
import { sourceOf } from "./service";
import { templateStarter } from "./starters";

const printed = new Map<StarterId, Promise<Blob>>();

/** starterPdf answers the PDF of a starter printed with its sample data; a failed print is tried again next time. */
export function starterPdf(worker: Pick<RenderWorker, "printSample">, id: StarterId): Promise<Blob> {
  let pdf = printed.get(id);
  if (!pdf) {
    const { source } = templateStarter(id);
    // A starter names no asset: its job needs none.
    pdf = templateJob({ source: sourceOf(source), assetIds: [] }, source.sampleData, () => null).then(async (job) => new Blob([Buffer.from(await worker.printSample(job))], { type: "application/pdf" }));
    printed.set(id, pdf);
    pdf.catch(() => printed.delete(id));
  }
  return pdf;
}

/** sign-render: the worker's step that signs a printed PDF with its render's certificate (issue 13). */
import { ApiError } from "../../errors";
import type { Clock } from "../../lib/clock";
import { signPdf } from "../../pdf/sign";
import type { FinishPdf } from "../../render/worker";
import type { Store } from "../../store/open";
import { openCertificate } from "./service";

/** renderSigner answers the worker's FinishPdf: a job with a `signature` is signed, or fails RENDER_FAILED naming why;
 * the PDF is never stored unsigned (issue 13). */
export function renderSigner(store: Store, clock: Clock, secretKey: string, timestampUrl?: string): FinishPdf {
  return async (workspaceId, job, pdf) => {
    const signature = job.signature;
    if (!signature) return pdf;
    // The certificate is looked at again now: it may have been deleted or have expired since the render was accepted.
    const opened = await openCertificate(store, clock, secretKey, workspaceId, signature.certificateId);
    if ("problem" in opened) throw new ApiError("RENDER_FAILED", opened.problem);
    try {
      return await signPdf(pdf, { signer: opened.signer, reason: signature.reason, location: signature.location, contactInfo: signature.contactInfo, signingTime: clock.now(), timestampUrl });
    } catch (e) {
      // A timestamp authority that does not answer is the usual cause; its message says which.
      throw new ApiError("RENDER_FAILED", `The PDF could not be signed: ${e instanceof Error ? e.message : String(e)}`);
    }
  };
}

/** seal-pdf: the worker's step from the printed PDF to the stored one — encrypted (`pdf.password`), then signed
 * (`signature`) — issue 13. */
import { ApiError } from "../../errors";
import type { Clock } from "../../lib/clock";
import { encryptPdf } from "../../pdf/encrypt";
import { signPdf } from "../../pdf/sign";
import type { SealPdf } from "../../render/worker";
import type { Store } from "../../store/open";
import { openCertificate } from "../certificates/service";

/** pdfSealer answers the worker's SealPdf. Encryption comes first so that the signature covers the encrypted file
 * (the order that gives a valid signed, encrypted PDF); a job that cannot be signed fails RENDER_FAILED naming why,
 * so a PDF is never stored unsigned. */
export function pdfSealer(store: Store, clock: Clock, secretKey: string, timestampUrl?: string): SealPdf {
  return async (workspaceId, job, printed) => {
    const pdf = job.encryption ? await encryptPdf(printed, job.encryption) : printed;
    const signature = job.signature;
    if (!signature) return pdf;
    // The certificate is looked at again now: it may have been deleted or have expired since the render was accepted.
    const opened = await openCertificate(store, clock, secretKey, workspaceId, signature.certificateId);
    if ("problem" in opened) throw new ApiError("RENDER_FAILED", opened.problem);
    try {
      return await signPdf(pdf, {
        signer: opened.signer,
        reason: signature.reason,
        location: signature.location,
        contactInfo: signature.contactInfo,
        signingTime: clock.now(),
        timestampUrl,
        password: job.encryption?.owner,
      });
    } catch (e) {
      // A timestamp authority that does not answer is the usual cause; its message says which.
      throw new ApiError("RENDER_FAILED", `The PDF could not be signed: ${e instanceof Error ? e.message : String(e)}`);
    }
  };
}

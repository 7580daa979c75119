/** seal-pdf: the worker's step from the printed PDF to the stored one — encrypted (`pdf.password`), then signed
 * (`signature`) — issue 13. */
import { ApiError } from "../../errors";
import type { Clock } from "../../lib/clock";
import { encryptPdf } from "../../pdf/encrypt";
import { signPdf } from "../../pdf/sign";
import { VisiblePlacementError } from "../../pdf/sign-appearance";
import type { SealPdf } from "../../render/produce";
import type { Store } from "../../store/store";
import { openCertificate } from "../certificates/service";

/** SealerOptions is what sealing needs: the store and clock to open certificates with, and the output limit. */
export interface SealerOptions {
  store: Store;
  clock: Clock;
  secretKey: string;
  /** RFC 3161 timestamp authority (SIGNATURE_TIMESTAMP_URL): signatures become B-T. */
  timestampUrl?: string;
  /** RENDER_MAX_OUTPUT_BYTES: it holds for the stored file, so the signature's ~25 kB count too. */
  maxOutputBytes: number;
}

/** pdfSealer answers the worker's SealPdf. Encryption comes first so that the signature covers the encrypted file
 * (the order that gives a valid signed, encrypted PDF); a job that cannot be signed fails RENDER_FAILED naming why,
 * so a PDF is never stored unsigned, and a sealed PDF over the byte limit fails LIMIT_EXCEEDED. */
export function pdfSealer(options: SealerOptions): SealPdf {
  return async (workspaceId, job, printed) => {
    const encrypted = job.encryption ? await encryptPdf(printed, job.encryption) : printed;
    const sealed = job.signature ? await sign(options, workspaceId, job, encrypted) : encrypted;
    if (sealed.byteLength > options.maxOutputBytes)
      throw new ApiError("LIMIT_EXCEEDED", `The ${job.signature ? "signed" : "encrypted"} PDF has ${sealed.byteLength} bytes; the limit is ${options.maxOutputBytes}.`);
    return sealed;
  };
}

async function sign(options: SealerOptions, workspaceId: string, job: Parameters<SealPdf>[1], pdf: Uint8Array): Promise<Uint8Array> {
  const { store, clock, secretKey, timestampUrl } = options;
  const signature = job.signature!;
  // The certificate is looked at again now: it may have been deleted or have expired since the render was accepted.
  const opened = await openCertificate(store, clock, secretKey, workspaceId, signature.certificateId);
  if ("problem" in opened) throw new ApiError("RENDER_FAILED", opened.problem);
  try {
    return await signPdf(pdf, {
      signer: opened.signer,
      reason: signature.reason,
      location: signature.location,
      contactInfo: signature.contactInfo,
      visible: signature.visible,
      signingTime: clock.now(),
      timestampUrl,
      password: job.encryption?.owner,
    });
  } catch (e) {
    // A box the printed document has no room for: its message names the field to change.
    if (e instanceof VisiblePlacementError) throw new ApiError("RENDER_FAILED", `The signature box cannot be drawn: ${e.message}`);
    // A timestamp authority that does not answer is the usual cause; its message says which.
    throw new ApiError("RENDER_FAILED", `The PDF could not be signed: ${e instanceof Error ? e.message : String(e)}`);
  }
}

/** certificates/service: a workspace's signing certificates (issue 13), sealed under SECRET_KEY, each change audited. */
import { ApiError } from "../../errors";
import { selectPage } from "../../http/paging";
import type { Clock } from "../../lib/clock";
import { newId } from "../../lib/ids";
import { openPkcs12, Pkcs12Error, validityProblem, type CertificateFacts, type OpenedPkcs12 } from "../../pdf/pkcs12";
import type { Reads, Store } from "../../store/store";
import { decryptSecret, encryptSecret } from "../../webhooks/secret-box";
import type { ChangeContext } from "../../auth/actor";
import { deleteResource, recordAudit } from "../audit/service";
import { MAX_PKCS12_BYTES, type Certificate, type CreateCertificateBody } from "./model";

interface CertificateRow {
  id: string;
  workspace_id: string;
  name: string;
  subject: string;
  issuer: string;
  serial_number: string;
  not_before: string;
  not_after: string;
  sha256_fingerprint: string;
  pkcs12_encrypted: string;
  created_at: string;
}

function toCertificate(r: CertificateRow): Certificate {
  return {
    id: r.id,
    name: r.name,
    subject: r.subject,
    issuer: r.issuer,
    serialNumber: r.serial_number,
    notBefore: r.not_before,
    notAfter: r.not_after,
    sha256Fingerprint: r.sha256_fingerprint,
    createdAt: r.created_at,
  };
}

async function findRow(store: Reads, workspaceId: string, id: string): Promise<CertificateRow | null> {
  return store.get<CertificateRow>("SELECT * FROM certificates WHERE id = $id AND workspace_id = $ws", { id, ws: workspaceId });
}

async function certificateRow(store: Reads, workspaceId: string, id: string): Promise<CertificateRow> {
  const r = await findRow(store, workspaceId, id);
  // DESIGN.md 2: another workspace's certificate is 404 too.
  if (!r) throw new ApiError("NOT_FOUND", `Certificate ${id} was not found.`);
  return r;
}

// A file that cannot sign is ASSET_INVALID (docs/decisions.md "Certificates"): like an asset, it is an uploaded file
// whose bytes are unusable, and the detail's path names the field to fix.
function unusable(field: "pkcs12" | "password", message: string): ApiError {
  return new ApiError("ASSET_INVALID", "The PKCS#12 file cannot be used for signing.", { details: [{ path: `/${field}`, message }] });
}

/** createCertificate opens the PKCS#12 file, refuses one that cannot sign today, and keeps it sealed under SECRET_KEY. */
export async function createCertificate(
  store: Store,
  clock: Clock,
  ctx: ChangeContext,
  workspaceId: string,
  input: CreateCertificateBody,
  secretKey: string,
): Promise<Certificate> {
  const bytes = Buffer.from(input.pkcs12, "base64");
  if (bytes.length > MAX_PKCS12_BYTES) throw unusable("pkcs12", `must be at most ${MAX_PKCS12_BYTES} bytes`);
  let facts: CertificateFacts;
  try {
    facts = (await openPkcs12(bytes, input.password)).facts;
  } catch (e) {
    if (e instanceof Pkcs12Error) throw unusable(e.field, e.message);
    throw e;
  }
  const expired = validityProblem(facts, clock.now());
  if (expired) throw unusable("pkcs12", expired);
  const id = newId("crt");
  // The row id is the seal's authenticated data: a sealed file copied onto another row does not open.
  const sealed = encryptSecret(secretKey, id, JSON.stringify({ pkcs12: input.pkcs12, password: input.password }));
  return store.tx(async (tx) => {
    await tx.run(
      `INSERT INTO certificates (id, workspace_id, name, subject, issuer, serial_number, not_before, not_after, sha256_fingerprint, pkcs12_encrypted, created_at)
       VALUES ($id, $ws, $name, $subject, $issuer, $serial, $notBefore, $notAfter, $fingerprint, $sealed, $now)`,
      {
        id,
        ws: workspaceId,
        name: input.name,
        subject: facts.subject,
        issuer: facts.issuer,
        serial: facts.serialNumber,
        notBefore: facts.notBefore.toISOString(),
        notAfter: facts.notAfter.toISOString(),
        fingerprint: facts.sha256Fingerprint,
        sealed,
        now: clock.now().toISOString(),
      },
    );
    await recordAudit(tx, clock, ctx, {
      workspaceId,
      action: "certificate.created",
      resourceType: "certificate",
      resourceId: id,
      resourceName: input.name,
      metadata: { subject: facts.subject, sha256Fingerprint: facts.sha256Fingerprint },
    });
    return toCertificate(await certificateRow(tx, workspaceId, id));
  });
}

/** listCertificates answers one page of the workspace's certificates, newest first. */
export async function listCertificates(store: Reads, workspaceId: string, query: { limit?: string; cursor?: string }): Promise<{ items: Certificate[]; nextCursor?: string }> {
  return selectPage(store, query, { from: "certificates", where: ["workspace_id = $ws"], params: { ws: workspaceId } }, toCertificate);
}

/** getCertificate answers one certificate of the workspace. */
export async function getCertificate(store: Reads, workspaceId: string, id: string): Promise<Certificate> {
  return toCertificate(await certificateRow(store, workspaceId, id));
}

/** deleteCertificate removes the certificate and its sealed key; renders that name it and are not yet signed fail. */
export function deleteCertificate(store: Store, clock: Clock, ctx: ChangeContext, workspaceId: string, id: string): Promise<{ id: string; deleted: true }> {
  return deleteResource(store, clock, ctx, "certificates", (tx) => certificateRow(tx, workspaceId, id), (r) => ({ workspaceId, action: "certificate.deleted", resourceType: "certificate", resourceId: id, resourceName: r.name }));
}

/** certificateProblem tells why the workspace cannot sign with certificate `id` now (missing — another workspace's
 * reads as missing —, expired, not yet valid), or null. */
export async function certificateProblem(store: Reads, clock: Clock, workspaceId: string, id: string): Promise<string | null> {
  const r = await findRow(store, workspaceId, id);
  return r ? validityProblem(factsOf(r), clock.now()) : `Certificate ${id} was not found; upload it with POST /v1/certificates.`;
}

/** assertCertificateUsable refuses a render naming a certificate the workspace lacks or that cannot sign now (422). */
export async function assertCertificateUsable(store: Reads, clock: Clock, workspaceId: string, id: string, path: string): Promise<void> {
  const problem = await certificateProblem(store, clock, workspaceId, id);
  if (problem) throw new ApiError("ASSET_INVALID", "The signature's certificate cannot be used.", { details: [{ path, message: problem }] });
}

function factsOf(r: CertificateRow): CertificateFacts {
  return {
    subject: r.subject,
    issuer: r.issuer,
    serialNumber: r.serial_number,
    notBefore: new Date(r.not_before),
    notAfter: new Date(r.not_after),
    sha256Fingerprint: r.sha256_fingerprint,
  };
}

/** openCertificate answers the ready signer of a certificate at signing time, or the reason it cannot sign (deleted, expired, unreadable). */
export async function openCertificate(store: Reads, clock: Clock, secretKey: string, workspaceId: string, id: string): Promise<OpenedPkcs12 | { problem: string }> {
  const r = await findRow(store, workspaceId, id);
  if (!r) return { problem: `The signing certificate ${id} was deleted before the PDF was signed.` };
  const expired = validityProblem(factsOf(r), clock.now());
  if (expired) return { problem: `The signing certificate ${id} cannot sign: ${expired}` };
  const opened = decryptSecret(secretKey, id, r.pkcs12_encrypted);
  if (opened === null) return { problem: `The signing certificate ${id} cannot be opened (SECRET_KEY changed?); upload it again.` };
  const { pkcs12, password } = JSON.parse(opened) as { pkcs12: string; password: string };
  try {
    return await openPkcs12(Buffer.from(pkcs12, "base64"), password);
  } catch (e) {
    return { problem: `The signing certificate ${id} cannot be opened: ${e instanceof Error ? e.message : String(e)}` };
  }
}

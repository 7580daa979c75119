/** Signature timestamps (PAdES B-T, SIGNATURE_TIMESTAMP_URL) against a local openssl timestamp authority. */
import { afterAll, expect, test } from "bun:test";
import { openPkcs12 } from "../../src/pdf/pkcs12";
import { signPdf } from "../../src/pdf/sign";
import { rejection } from "../wait";
import { makePkcs12, poppler } from "./certs";
import { samplePdf } from "./sample";
import { startTsa } from "./tsa";

const tsa = startTsa();
afterAll(() => tsa.stop());

// id-aa-signatureTimeStampToken (1.2.840.113549.1.9.16.2.14) as DER, as it appears in the hex of /Contents.
const TIMESTAMP_ATTRIBUTE = "060b2a864886f70d010910020e";

test("with a timestamp URL the signature carries the authority's token and stays valid", async () => {
  const { signer } = await openPkcs12(makePkcs12(), "secret");
  const plain = await signPdf(await samplePdf(), { signer });
  expect(Buffer.from(plain).toString("latin1").toLowerCase()).not.toContain(TIMESTAMP_ATTRIBUTE);
  const stamped = await signPdf(await samplePdf(), { signer, timestampUrl: tsa.url });
  expect(tsa.requests()).toBe(1);
  expect(Buffer.from(stamped).toString("latin1").toLowerCase()).toContain(TIMESTAMP_ATTRIBUTE);
  const check = poppler("pdfsig", stamped);
  expect(check.out).toContain("Signature is Valid.");
  expect(check.out).toContain("Total document signed");
});

test("a timestamp authority that does not answer fails the signing", async () => {
  const { signer } = await openPkcs12(makePkcs12(), "secret");
  const error = await rejection(signPdf(await samplePdf(), { signer, timestampUrl: "http://127.0.0.1:9/tsr" }));
  expect(error).toBeInstanceOf(Error);
});

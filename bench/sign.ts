/**
 * sign: the cost of signing (and of encrypting) one printed document — bench/floor.ts's one-page invoice, printed
 * once by Chromium, then signed `n` times with a fresh OpenSSL RSA-2048 and EC P-256 PKCS#12 (PAdES B-B, SHA-256),
 * invisibly and with a visible box.
 * Run: `flock /tmp/renderd-chromium.lock bun bench/sign.ts [n]`. Figures are recorded in docs/performance.md.
 */
import { encryptPdf } from "../src/pdf/encrypt";
import { openPkcs12 } from "../src/pdf/pkcs12";
import { signPdf } from "../src/pdf/sign";
import { makePkcs12 } from "../test/pdf/certs";
import { CONTEXT, INVOICE_HTML, launchBrowser, PDF_OPTIONS } from "./floor";

const n = Number(process.argv[2] ?? 20);

async function printedInvoice(): Promise<Uint8Array> {
  const browser = await launchBrowser();
  try {
    const page = await (await browser.newContext(CONTEXT)).newPage();
    await page.setContent(INVOICE_HTML);
    return new Uint8Array(await page.pdf(PDF_OPTIONS));
  } finally {
    await browser.close();
  }
}

async function timed(label: string, run: () => Promise<Uint8Array>): Promise<void> {
  const ms: number[] = [];
  let bytes = 0;
  await run(); // warm-up: module and WebCrypto set-up are not a document's cost
  for (let i = 0; i < n; i++) {
    const start = performance.now();
    bytes = (await run()).length;
    ms.push(performance.now() - start);
  }
  ms.sort((a, b) => a - b);
  const at = (q: number) => ms[Math.min(ms.length - 1, Math.floor(q * ms.length))]!.toFixed(1);
  console.log(`${label.padEnd(34)} median ${at(0.5)} ms  p90 ${at(0.9)} ms  max ${at(1)} ms  output ${bytes} bytes`);
}

const pdf = await printedInvoice();
console.log(`invoice: ${pdf.length} bytes, ${n} runs each`);
const rsa = (await openPkcs12(makePkcs12({ key: "rsa" }), "secret")).signer;
const ec = (await openPkcs12(makePkcs12({ key: "ec" }), "secret")).signer;
const p12 = makePkcs12({ key: "rsa" });
await timed("open PKCS#12 (RSA, OpenSSL 3)", async () => {
  await openPkcs12(p12, "secret");
  return p12;
});
await timed("sign, RSA-2048", () => signPdf(pdf, { signer: rsa, reason: "Invoice issued" }));
await timed("sign, RSA-2048, visible box", () =>
  signPdf(pdf, { signer: rsa, reason: "Invoice issued", location: "Berlin", visible: { page: 1, x: 320, y: 700, width: 240, height: 64 } }),
);
await timed("sign, EC P-256", () => signPdf(pdf, { signer: ec, reason: "Invoice issued" }));
await timed("encrypt, AES-256", () => encryptPdf(pdf, { user: "u", owner: "o" }));
const encrypted = await encryptPdf(pdf, { user: "u", owner: "o" });
await timed("sign encrypted, RSA-2048", () => signPdf(encrypted, { signer: rsa, password: "o" }));

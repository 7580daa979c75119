/** openapi-document: prints /v1/openapi.json as the code serves it, from the app's route table built in-process (no
 * Chromium). Run in a process of its own by generated.test.ts: Elysia adds `additionalProperties: false` to a response
 * schema once it has validated a response with it, so in a test process whose other files already served requests the
 * shared schemas — and the document — would differ from a fresh server's. */
import { buildApi } from "../../../test/api/in-process";
import { PUBLIC_URL } from "../generate";

const app = await buildApi({ PUBLIC_URL });
try {
  process.stdout.write(await (await app.api.handle(new Request(`${PUBLIC_URL}/v1/openapi.json`))).text());
} finally {
  await app.close();
}

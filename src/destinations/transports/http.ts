/** transports/http: a file sent as the body of one PUT or POST, to the checked address (as webhooks dial, dialTarget). */
import { dialTarget, failureText } from "../../webhooks/dispatcher";
import type { HttpConfig } from "../settings";
import type { Dial, OutgoingFile } from "./file";

/** deliverHttp sends the file and answers the URL it went to; anything but a 2xx answer is a failure. */
export async function deliverHttp(config: HttpConfig, file: OutgoingFile, dial: Dial): Promise<string> {
  const target = dialTarget(dial.url, dial.address);
  let response: Response;
  try {
    response = await fetch(target.url, {
      method: config.method,
      headers: {
        ...dial.traceHeaders,
        ...config.headers,
        host: dial.url.host,
        "content-type": file.mediaType,
        "content-disposition": `attachment; filename="${file.filename.replace(/["\\\r\n]/g, "_")}"`,
      },
      body: file.bytes,
      // spec 6.5 (2), as for webhooks: a redirect is not followed.
      redirect: "manual",
      signal: AbortSignal.timeout(dial.timeoutMs),
      tls: target.serverName ? { serverName: target.serverName } : undefined,
    });
  } catch (err) {
    throw new Error(failureText(err));
  }
  response.body?.cancel().catch(() => {});
  if (response.status < 200 || response.status > 299) throw new Error(`The endpoint answered HTTP ${response.status}.`);
  return dial.url.href;
}

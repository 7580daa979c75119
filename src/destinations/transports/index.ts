/** transports: one delivery of a file to a destination of any type, after its host passed the 6.7 check. */
import type { DestinationOptions } from "../../webhooks/destinations";
import { checkHost } from "../hosts";
import type { DestinationConfig } from "../settings";
import { deliverEmail } from "./email";
import type { OutgoingFile } from "./file";
import { deliverHttp } from "./http";
import { deliverS3 } from "./s3";
import { deliverSftp } from "./sftp";

export type { OutgoingFile } from "./file";

/** deliver checks the destination's host again (spec 6.5 (5), as for webhooks) and sends the file; it answers where the
 * file went, or throws an Error whose message is the delivery's lastError. `traceHeaders` (the attempt's traceparent)
 * go with an HTTP delivery. */
export async function deliver(destination: DestinationConfig, file: OutgoingFile, hosts: DestinationOptions, timeoutMs: number, traceHeaders: Record<string, string> = {}): Promise<string> {
  const check = await checkHost(destination, hosts);
  if (!check.ok) throw new Error(check.reason);
  const dial = { host: check.host, address: check.address, url: check.url, allowPlain: hosts.allowPrivate, timeoutMs, traceHeaders };
  switch (destination.type) {
    case "s3":
      return deliverS3(destination.config, file, dial);
    case "sftp":
      return deliverSftp(destination.config, file, dial);
    case "email":
      return deliverEmail(destination.config, file, dial);
    case "http":
      return deliverHttp(destination.config, file, dial);
  }
}

/** destinations/hosts: the spec 6.7 destination check of webhooks (webhooks/destinations.ts), applied to where each
 * destination type connects; DESTINATION_ALLOW_PRIVATE=1 relaxes it as WEBHOOK_ALLOW_* do for webhooks. */
import type { Config } from "../config";
import { checkDestination, resolveHost, type DestinationOptions, type Resolver } from "../webhooks/destinations";
import type { DestinationConfig, S3Config } from "./settings";

/** hostOptions answers the 6.7 options for destinations: private hosts and plain http only with DESTINATION_ALLOW_PRIVATE=1. */
export function hostOptions(config: Pick<Config, "destinationAllowPrivate">, resolve: Resolver = resolveHost): DestinationOptions {
  return { allowHttp: config.destinationAllowPrivate, allowPrivate: config.destinationAllowPrivate, resolve };
}

/** The outcome: the host name and the checked address to dial (never the name again), or the reason and the field it is about. */
export type HostCheck = { ok: true; host: string; address: string; url: URL } | { ok: false; path: string; reason: string };

/** s3Endpoint answers the S3 address a destination talks to: its own endpoint or AWS's for its region, with the bucket
 * in the host name (virtual-hosted style) unless forcePathStyle asks for it in the path. */
export function s3Endpoint(config: Pick<S3Config, "endpoint" | "region" | "bucket" | "forcePathStyle">): string {
  const url = new URL(config.endpoint ?? `https://s3.${config.region}.amazonaws.com`);
  if (!config.forcePathStyle) url.hostname = `${config.bucket}.${url.hostname}`;
  return url.origin;
}

/** checkHost runs the 6.7 check on the host a destination connects to. */
export async function checkHost(destination: DestinationConfig, options: DestinationOptions): Promise<HostCheck> {
  let url: string;
  let path: string;
  try {
    ({ url, path } = target(destination));
  } catch {
    return { ok: false, path: "/config/endpoint", reason: "The endpoint is not a valid URL." };
  }
  if (/^http:/i.test(url) && !options.allowHttp) return { ok: false, path, reason: "The URL must use https (http is accepted only when the server runs with DESTINATION_ALLOW_PRIVATE=1)." };
  const check = await checkDestination(url, options);
  if (!check.ok) {
    // Name the setting only where it would let the host through (not for a name that does not resolve).
    const relaxed = !options.allowPrivate && (await checkDestination(url, { ...options, allowPrivate: true })).ok;
    return { ok: false, path, reason: relaxed ? `${check.reason} Private and loopback hosts need DESTINATION_ALLOW_PRIVATE=1.` : check.reason };
  }
  return { ok: true, host: check.url.hostname.replace(/^\[|\]$/g, ""), address: check.address, url: check.url };
}

// SFTP and SMTP hosts are checked as the host of an https URL: only the host matters there, not the scheme.
function target(d: DestinationConfig): { url: string; path: string } {
  const bracket = (host: string) => (host.includes(":") && !host.startsWith("[") ? `[${host}]` : host);
  switch (d.type) {
    case "s3":
      return { url: s3Endpoint(d.config), path: "/config/endpoint" };
    case "sftp":
      return { url: `https://${bracket(d.config.host)}/`, path: "/config/host" };
    case "email":
      return { url: `https://${bracket(d.config.smtpHost)}/`, path: "/config/smtpHost" };
    case "http":
      return { url: d.config.url, path: "/config/url" };
  }
}

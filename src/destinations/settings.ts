/** destinations/settings: each destination type's `config` (issue 14; docs/destinations.md) and which of its fields are
 * credentials, kept sealed under SECRET_KEY and answered masked. */
import { Type, type Static, type TSchema } from "@sinclair/typebox";
import { Value } from "@sinclair/typebox/value";
import type { ErrorDetail } from "../errors";
import { describeValueError } from "../http/validation";
import { literalUnion } from "../lib/literals";

/** The destination types, one transport each (transports/). */
export const DESTINATION_TYPES = ["s3", "sftp", "email", "http"] as const;
export const DestinationType = literalUnion(DESTINATION_TYPES);
export type DestinationType = Static<typeof DestinationType>;

const closed = { additionalProperties: false } as const;
const Text = (maxLength = 255) => Type.String({ minLength: 1, maxLength });
const Host = Type.String({ minLength: 1, maxLength: 253, pattern: "^[A-Za-z0-9.:\\-\\[\\]]+$", errorMessage: "must be a host name or IP address" });
const Port = Type.Integer({ minimum: 1, maximum: 65535 });
const Address = Type.String({ minLength: 3, maxLength: 320, pattern: "^[^\\s@<>]+@[^\\s@<>]+$", errorMessage: "must be an e-mail address (name@example.com)" });

export const S3Config = Type.Object(
  {
    bucket: Type.String({ minLength: 3, maxLength: 63, pattern: "^[a-z0-9][a-z0-9.\\-]*[a-z0-9]$", errorMessage: "must be a bucket name (3 to 63 lower-case letters, digits, dots and hyphens)" }),
    region: Text(64),
    /** An S3-compatible service (MinIO, R2…); AWS's regional endpoint when absent. */
    endpoint: Type.Optional(Text(2048)),
    /** Put before each file name, e.g. `invoices/`. */
    prefix: Type.Optional(Type.String({ maxLength: 512 })),
    accessKeyId: Text(256),
    secretAccessKey: Text(512),
    forcePathStyle: Type.Optional(Type.Boolean()),
  },
  closed,
);

export const SftpConfig = Type.Object(
  {
    host: Host,
    port: Type.Optional(Port),
    username: Text(),
    password: Type.Optional(Text(1024)),
    /** An OpenSSH private key (PEM), unencrypted. */
    privateKey: Type.Optional(Type.String({ minLength: 1, maxLength: 16384 })),
    /** The server key's fingerprint as `ssh-keygen -lf` prints it; the connection is refused for any other key. */
    hostKeySha256: Type.String({ pattern: "^SHA256:[A-Za-z0-9+/]{43}$", errorMessage: "must be the host key's fingerprint as ssh-keygen -lf prints it (SHA256: and 43 base64 characters)" }),
    /** Files land directly in this folder; it must exist. */
    directory: Text(1024),
  },
  closed,
);

export const EmailConfig = Type.Object(
  {
    smtpHost: Host,
    smtpPort: Port,
    /** TLS from the first byte (port 465); false means STARTTLS, required unless DESTINATION_ALLOW_PRIVATE=1. */
    secure: Type.Boolean(),
    username: Type.Optional(Text()),
    password: Type.Optional(Text(1024)),
    from: Address,
    to: Type.Array(Address, { minItems: 1, maxItems: 20 }),
    /** May use {{data.…}} and {{metadata.…}} placeholders (placeholders.ts). */
    subject: Type.Optional(Text(998)),
  },
  closed,
);

const HeaderName = "^[A-Za-z0-9!#$%&'*+.^_`|~\\-]{1,128}$";
export const HttpConfig = Type.Object(
  {
    url: Text(2048),
    method: literalUnion(["PUT", "POST"] as const),
    /** Sent with every request, e.g. an Authorization header; their values are credentials. */
    headers: Type.Optional(Type.Record(Type.String({ pattern: HeaderName }), Type.String({ maxLength: 4096 }), { maxProperties: 20 })),
  },
  closed,
);

export type S3Config = Static<typeof S3Config>;
export type SftpConfig = Static<typeof SftpConfig>;
export type EmailConfig = Static<typeof EmailConfig>;
export type HttpConfig = Static<typeof HttpConfig>;

/** DestinationConfig is a type with its whole config, credentials included: what a transport delivers with. */
export type DestinationConfig =
  | { type: "s3"; config: S3Config }
  | { type: "sftp"; config: SftpConfig }
  | { type: "email"; config: EmailConfig }
  | { type: "http"; config: HttpConfig };

/** CONFIG_SCHEMAS is each type's config schema. */
export const CONFIG_SCHEMAS: Record<DestinationType, TSchema> = { s3: S3Config, sftp: SftpConfig, email: EmailConfig, http: HttpConfig };

/** SECRET_FIELDS are each type's credential fields: sealed at rest, never answered (issue 14). */
export const SECRET_FIELDS: Record<DestinationType, readonly string[]> = {
  s3: ["accessKeyId", "secretAccessKey"],
  sftp: ["password", "privateKey"],
  email: ["password"],
  http: ["headers"],
};

/** What an answered config shows in place of a credential; sent back in a PATCH it keeps the stored value. */
export const MASK = "********";

type Fields = Record<string, unknown>;

/** splitSecrets parts a config into its plain fields and its credential fields. */
export function splitSecrets(type: DestinationType, config: Fields): { plain: Fields; secrets: Fields } {
  const plain: Fields = {};
  const secrets: Fields = {};
  for (const [k, v] of Object.entries(config)) (SECRET_FIELDS[type].includes(k) ? secrets : plain)[k] = v;
  return { plain, secrets };
}

/** maskConfig answers a config as the API shows it: each credential replaced by MASK (a header keeps its name). */
export function maskConfig(plain: Fields, secrets: Fields): Fields {
  const masked: Fields = { ...plain };
  for (const [k, v] of Object.entries(secrets)) {
    if (v === undefined) continue;
    masked[k] = k === "headers" ? Object.fromEntries(Object.keys(v as Fields).map((name) => [name, MASK])) : MASK;
  }
  return masked;
}

/** keepMasked answers `next` with every credential still equal to MASK replaced by the stored one, header by header. */
export function keepMasked(stored: Fields, next: Fields): Fields {
  const merged: Fields = { ...next };
  for (const [k, v] of Object.entries(next)) {
    if (v === MASK && k in stored) merged[k] = stored[k];
    else if (k === "headers" && v && typeof v === "object") {
      const before = (stored.headers ?? {}) as Record<string, string>;
      merged.headers = Object.fromEntries(Object.entries(v as Record<string, string>).map(([n, value]) => [n, value === MASK && n in before ? before[n] : value]));
    }
  }
  return merged;
}

/** configProblems answers the config's problems against its type's schema, pointed at below `/config`, one per field. */
export function configProblems(type: DestinationType, config: unknown): ErrorDetail[] {
  const details: ErrorDetail[] = [];
  for (const e of Value.Errors(CONFIG_SCHEMAS[type], config)) {
    const path = `/config${e.path}`;
    if (!details.some((d) => d.path === path)) details.push({ path, message: describeValueError(e) });
  }
  // sftp: one way to sign in is needed; a Type.Union over the two would word its errors once per branch.
  const sftp = config as SftpConfig;
  if (type === "sftp" && details.length === 0 && !sftp.password && !sftp.privateKey) details.push({ path: "/config/password", message: "give a password or a privateKey" });
  return details;
}

/** transports/email: a file sent as the attachment of one message through an SMTP server (nodemailer). */
import nodemailer from "nodemailer";
import type { EmailConfig } from "../settings";
import type { Dial, OutgoingFile } from "./file";

/** deliverEmail sends one message to every `to` address and answers `mailto:` them all. */
export async function deliverEmail(config: EmailConfig, file: OutgoingFile, dial: Dial): Promise<string> {
  const transport = nodemailer.createTransport({
    host: dial.address,
    port: config.smtpPort,
    secure: config.secure,
    // Without TLS from the first byte STARTTLS is required, unless plain connections are allowed (DESTINATION_ALLOW_PRIVATE=1).
    requireTLS: !config.secure && !dial.allowPlain,
    auth: config.username ? { user: config.username, pass: config.password } : undefined,
    // The certificate is checked against the name configured, not the address dialled.
    tls: { servername: dial.host },
    connectionTimeout: dial.timeoutMs,
    greetingTimeout: dial.timeoutMs,
    socketTimeout: dial.timeoutMs,
  });
  try {
    await transport.sendMail({
      from: config.from,
      to: config.to,
      subject: file.subject,
      text: `${file.filename} is attached.`,
      attachments: [{ filename: file.filename, content: Buffer.from(file.bytes), contentType: file.mediaType }],
    });
  } catch (err) {
    throw new Error(`SMTP failed: ${(err as Error).message}`);
  } finally {
    transport.close();
  }
  return `mailto:${config.to.join(",")}`;
}

import { createTransport } from 'nodemailer';
import type { MailSettingsRow } from './repository.ts';

/** A file attached to a mail (e.g. a PDF report). */
export interface MailAttachment {
  filename: string;
  content: Buffer | string;
  /** MIME type, e.g. `application/pdf`; guessed from `filename` when left out. */
  contentType?: string;
}

/** One message. `to` is one address or several. */
export interface MailMessage {
  to: string | readonly string[];
  subject: string;
  /** The plain-text body (always sent). */
  text: string;
  /** An HTML alternative of the body. */
  html?: string;
  attachments?: readonly MailAttachment[];
}

/** Time limits of one SMTP exchange, ms: a dead server fails the send instead of hanging a request. */
const TIMEOUTS = { connectionTimeout: 10_000, greetingTimeout: 10_000, socketTimeout: 20_000 } as const;

/**
 * Sends `message` through the SMTP server of `settings` with nodemailer: `security` 'tls' is TLS
 * from the first byte (RFC 8314 §3.3), 'starttls' requires the STARTTLS upgrade (RFC 3207), 'none'
 * sends in the clear (and does not try STARTTLS: a loopback relay or a test server). Authenticates
 * only when a username is set. The From header is `"<sender>" <from_email>`.
 * @returns the SMTP server's message id
 * @throws Error from the transport (connection refused, authentication failed, recipient refused)
 */
export async function deliver(settings: MailSettingsRow, message: MailMessage): Promise<string> {
  const transport = createTransport({
    host: settings.server,
    port: settings.port,
    secure: settings.security === 'tls',
    requireTLS: settings.security === 'starttls',
    ignoreTLS: settings.security === 'none',
    ...(settings.username === '' ? {} : { auth: { user: settings.username, pass: settings.password } }),
    ...TIMEOUTS,
  });
  try {
    const info = await transport.sendMail({
      from: settings.sender === '' ? settings.from_email : { name: settings.sender, address: settings.from_email },
      to: typeof message.to === 'string' ? message.to : [...message.to],
      subject: message.subject,
      text: message.text,
      ...(message.html === undefined ? {} : { html: message.html }),
      ...(message.attachments === undefined
        ? {}
        : {
            attachments: message.attachments.map((a) => ({
              filename: a.filename,
              content: a.content,
              ...(a.contentType === undefined ? {} : { contentType: a.contentType }),
            })),
          }),
    });
    return String(info.messageId ?? '');
  } finally {
    transport.close();
  }
}

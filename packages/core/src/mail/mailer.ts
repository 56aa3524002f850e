import { logOutboundFailure, OutboundError, type OutboundOptions, resolveOutbound } from '@cordon/shared/outbound';
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

/** The longest whole SMTP exchange, ms: a server that trickles answers cannot hold a job. */
const TOTAL_MS = 60_000;

/** How {@link deliver} reaches the server: the outbound guard's settings and the time caps (tests shorten them). */
export interface DeliverOptions {
  /** The outbound guard's allow list and resolver (docs/security.md "Outbound requests"); default the process-wide one. */
  readonly outbound?: OutboundOptions;
  /** Connection and greeting time cap, ms (default 10 s). */
  readonly connectTimeoutMs?: number;
  /** Whole exchange time cap, ms (default 60 s). */
  readonly totalTimeoutMs?: number;
}

/**
 * Messages this process handed to an SMTP server (`sent`) and failed to (`failed`), since start: the
 * mail metrics (docs/operations.md "Monitoring"). Counted by {@link deliver}.
 */
export const mailDeliveries = { sent: 0, failed: 0 };

/**
 * Sends `message` through the SMTP server of `settings` with nodemailer, through the outbound guard
 * (docs/security.md "Outbound requests"): the server's name is resolved and checked first, and
 * nodemailer connects to the checked address (TLS still verifies the certificate against the name).
 * Any failure (refused address, connection, TLS, authentication, recipient refused, time out) is one
 * OutboundError "The server could not be reached."; the cause is logged for the operator only.
 * `security` 'tls' is TLS from the first byte (RFC 8314 §3.3), 'starttls' requires the STARTTLS
 * upgrade (RFC 3207), 'none' sends in the clear (and does not try STARTTLS: a loopback relay or a test server). Authenticates
 * only when a username is set. The From header is `"<sender>" <from_email>`.
 * @returns the SMTP server's message id
 * @throws OutboundError (message "The server could not be reached.") whatever went wrong
 */
export async function deliver(
  settings: MailSettingsRow,
  message: MailMessage,
  options: DeliverOptions = {},
): Promise<string> {
  const target = `smtp://${settings.server}:${settings.port}`;
  let checked: Awaited<ReturnType<typeof resolveOutbound>>;
  try {
    checked = await resolveOutbound(settings.server, options.outbound);
  } catch (e) {
    mailDeliveries.failed++;
    if (!(e instanceof OutboundError)) throw e;
    logOutboundFailure(target, e.detail);
    throw e;
  }
  const connectMs = options.connectTimeoutMs ?? TIMEOUTS.connectionTimeout;
  const name = settings.server.replace(/^\[|\]$/g, '');
  const transport = createTransport({
    host: checked.address,
    port: settings.port,
    ...(name === checked.address ? {} : { servername: name }),
    secure: settings.security === 'tls',
    requireTLS: settings.security === 'starttls',
    ignoreTLS: settings.security === 'none',
    ...(settings.username === '' ? {} : { auth: { user: settings.username, pass: settings.password } }),
    ...TIMEOUTS,
    connectionTimeout: connectMs,
    greetingTimeout: connectMs,
  });
  const totalMs = options.totalTimeoutMs ?? TOTAL_MS;
  let timer: NodeJS.Timeout | undefined;
  try {
    const sending = transport.sendMail({
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
    sending.catch(() => {}); // when the deadline wins, the abandoned send's failure is not unhandled
    const deadline = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new Error(`no complete exchange within ${totalMs} ms`)), totalMs);
    });
    const info = await Promise.race([sending, deadline]);
    mailDeliveries.sent++;
    return String(info.messageId ?? '');
  } catch (e) {
    mailDeliveries.failed++;
    const detail = e instanceof Error ? e.message : String(e);
    logOutboundFailure(target, detail);
    throw new OutboundError(detail);
  } finally {
    clearTimeout(timer);
    transport.close();
  }
}

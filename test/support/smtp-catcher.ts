import type { AddressInfo } from 'node:net';
import { setOutboundAllow } from '@cordon/shared/outbound';
import { type ParsedMail, simpleParser } from 'mailparser';
import { SMTPServer } from 'smtp-server';

/** A mail the catcher received: the envelope and the parsed message. */
export interface CaughtMail {
  from: string;
  to: string[];
  subject: string;
  text: string;
  html: string;
  attachments: ParsedMail['attachments'];
}

/** A loopback SMTP server that keeps every mail it receives (tests only; RFC 5321 without TLS or auth). */
export interface SmtpCatcher {
  /** The port it listens on, on 127.0.0.1. */
  readonly port: number;
  /** The mails received so far, oldest first. */
  readonly mails: CaughtMail[];
  /** Resolves with the first mail to `to` (lower case compare) received after `since` mails, waiting up to `timeoutMs`. */
  waitFor(to: string, opts?: { since?: number; timeoutMs?: number }): Promise<CaughtMail>;
  close(): Promise<void>;
}

/**
 * Starts an SMTP server on 127.0.0.1 (a free port) that accepts any sender and recipient without
 * authentication and parses each message with mailparser. Point the mail settings at it with
 * `{ server: '127.0.0.1', port: catcher.port, security: 'none' }`. Sets the operator allowance
 * `127.0.0.1/32` (as `cordon serve --outbound-allow 127.0.0.1/32` would) in this test process while a
 * catcher is open, and the default (none) again when the last one closes: the outbound guard refuses
 * loopback by default (docs/security.md "Outbound requests"), and the test files that run after this
 * one in the same worker must see that default.
 */
export async function startSmtpCatcher(): Promise<SmtpCatcher> {
  openCatchers += 1;
  setOutboundAllow(['127.0.0.1/32']);
  const mails: CaughtMail[] = [];
  const waiters = new Set<() => void>();
  const server = new SMTPServer({
    authOptional: true,
    disabledCommands: ['STARTTLS', 'AUTH'],
    logger: false,
    onData(stream, session, callback) {
      simpleParser(stream)
        .then((parsed) => {
          mails.push({
            from: session.envelope.mailFrom === false ? '' : session.envelope.mailFrom.address,
            to: session.envelope.rcptTo.map((r) => r.address.toLowerCase()),
            subject: parsed.subject ?? '',
            text: parsed.text ?? '',
            html: typeof parsed.html === 'string' ? parsed.html : '',
            attachments: parsed.attachments,
          });
          for (const w of waiters) w();
          callback();
        })
        .catch((e: Error) => callback(e));
    },
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.server.address() as AddressInfo).port;
  let closed = false;
  return {
    port,
    mails,
    waitFor(to, opts = {}) {
      const since = opts.since ?? 0;
      const find = () => mails.slice(since).find((m) => m.to.includes(to.toLowerCase()));
      return new Promise((resolve, reject) => {
        const hit = find();
        if (hit) return resolve(hit);
        const check = () => {
          const found = find();
          if (found) {
            waiters.delete(check);
            clearTimeout(timer);
            resolve(found);
          }
        };
        const timer = setTimeout(() => {
          waiters.delete(check);
          reject(new Error(`no mail to ${to} within ${opts.timeoutMs ?? 5000} ms`));
        }, opts.timeoutMs ?? 5000);
        waiters.add(check);
      });
    },
    close: () => {
      if (!closed) {
        closed = true;
        openCatchers -= 1;
        if (openCatchers === 0) setOutboundAllow([]);
      }
      return new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/** Catchers of this process not closed yet: the loopback allowance lasts while one is open. */
let openCatchers = 0;

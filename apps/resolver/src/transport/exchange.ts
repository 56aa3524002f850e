import type { Logger } from 'pino';
import { decodeQuery, emptyResponse, Flag, fitForTransport, Rcode } from '../dns/message.ts';
import type { ResolverCounters } from '../metrics.ts';
import type { DnsAnswer, DnsProtocol, DnsRequest, Handler } from '../request.ts';

/**
 * The one step both transports share: wire query in, wire answer out (or null: send nothing).
 * Decodes into a {@link DnsRequest}, runs the pipeline, fits the answer to the transport (UDP
 * truncation). Synchronous when the pipeline answered synchronously (blocked, REFUSED, cache
 * hit), else a promise. No policy here (docs/contributing.md "Conventions" 2). Never throws or rejects.
 */
export type Exchange = (
  raw: Buffer,
  clientIp: string,
  protocol: DnsProtocol,
  /** The DoH path's or DoT SNI's key (transport/doh.ts, transport/dot.ts); absent for UDP and TCP. */
  pathKey?: string | null,
) => Buffer | null | Promise<Buffer | null>;

export function createExchange(handler: Handler, counters: ResolverCounters, logger: Logger): Exchange {
  const finish = (answer: DnsAnswer): Buffer => {
    const request = answer.context.request;
    const wire = fitForTransport(answer.wire, request);
    if (wire !== answer.wire && (wire.readUInt16BE(2) & Flag.TC) !== 0) counters.truncated++;
    return wire;
  };
  const failed = (err: unknown, request: DnsRequest): Buffer => {
    // A bug, not a DNS condition: answer SERVFAIL rather than leave the client waiting.
    logger.error({ err, qname: request.question.qname }, 'pipeline failed');
    return emptyResponse(request, Rcode.SERVFAIL);
  };
  return (raw, clientIp, protocol, pathKey = null) => {
    const decoded = decodeQuery(raw, clientIp, protocol, pathKey);
    if (decoded.kind === 'drop') {
      counters.malformed++;
      return null;
    }
    if (decoded.kind === 'error') {
      counters.malformed++;
      return decoded.response;
    }
    const request = decoded.request;
    counters.queries++;
    try {
      const answer = handler({ request, identity: null, decision: null });
      if (answer instanceof Promise) {
        return answer.then(finish, (err: unknown) => failed(err, request));
      }
      return finish(answer);
    } catch (err) {
      return failed(err, request);
    }
  };
}

import type { Logger } from 'pino';
import { decodeQuery, emptyResponse, Flag, fitForTransport, Rcode } from '../dns/message.ts';
import { qtypeIndex, type ResolverCounters } from '../metrics.ts';
import type { DnsProtocol, DnsRequest, Handler, PipelineResponse } from '../request.ts';

/** One more at `index` of a counter array (the index is in range by construction). */
function countAt(counts: Float64Array, index: number): void {
  counts[index] = (counts[index] as number) + 1;
}

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
  const finish = (answer: PipelineResponse): Buffer => {
    const request = answer.context.request;
    const wire = fitForTransport(answer.wire, request);
    if (wire !== answer.wire && (wire.readUInt16BE(2) & Flag.TC) !== 0) counters.truncated++;
    countAt(counters.byRcode, (wire[3] as number) & 0xf);
    return wire;
  };
  const failed = (err: unknown, request: DnsRequest): Buffer => {
    // A bug, not a DNS condition: answer SERVFAIL rather than leave the client waiting.
    logger.error({ err, qname: request.question.qname }, 'pipeline failed');
    countAt(counters.byRcode, Rcode.SERVFAIL);
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
    countAt(counters.byTransport, protocol === 'udp' ? 0 : protocol === 'tcp' ? 1 : protocol === 'doh' ? 2 : 3);
    countAt(counters.byQtype, qtypeIndex(request.question.typeCode));
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

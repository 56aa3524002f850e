import type { Logger } from 'pino';
import { buildResponse, decodeQuery, encodeResponse, Flag, Rcode } from '../dns/message.ts';
import type { ResolverCounters } from '../metrics.ts';
import type { DnsProtocol, Handler } from '../request.ts';

/**
 * The one step both transports share: wire query in, wire answer out (or null: send nothing).
 * Decodes into a {@link DnsRequest}, runs the pipeline, encodes (with UDP truncation). No policy
 * here (STYLE.md §2).
 */
export type Exchange = (raw: Buffer, clientIp: string, protocol: DnsProtocol) => Promise<Buffer | null>;

export function createExchange(handler: Handler, counters: ResolverCounters, logger: Logger): Exchange {
  return async (raw, clientIp, protocol) => {
    const decoded = decodeQuery(raw, clientIp, protocol);
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
      const answer = await handler({ request, identity: null, decision: null });
      const wire = encodeResponse(answer.message, request);
      if (protocol === 'udp' && wire.length >= 4 && (wire.readUInt16BE(2) & Flag.TC) !== 0) counters.truncated++;
      return wire;
    } catch (err) {
      // A bug, not a DNS condition: answer SERVFAIL rather than leave the client waiting.
      logger.error({ err, qname: request.question.qname }, 'pipeline failed');
      return encodeResponse(buildResponse(request, { rcode: Rcode.SERVFAIL }), request);
    }
  };
}

import { isIP } from 'node:net';
import { canonicalIp, parseCidr } from '@cordon/shared';

/** One device-exception rule as the heartbeat answers it (spec-notes §3 "Exception rule"; docs/decisions.md "Environment"). */
export interface AgentRule {
  id: number;
  /** Normalised domain: the rule matches it and every name below it; empty: any name. */
  domain: string;
  /** Source address or CIDR of the asking program; empty: any. */
  ip: string;
  /** `ip` or `ip:port` (`[v6]:port`) for `Use Specific Resolver`. */
  resolver: string;
  rule_type: 'ByPass OTG' | 'Use Specific Resolver';
}

/** Where a query goes: Cordon over DoH, the system resolver, or a named resolver. */
export type Route =
  | { readonly kind: 'cordon' }
  | { readonly kind: 'system'; readonly ruleId: number }
  | { readonly kind: 'resolver'; readonly host: string; readonly port: number; readonly ruleId: number };

const CORDON: Route = Object.freeze({ kind: 'cordon' });

/** `ip`, `ip:port` or `[v6]:port` → host and port (53 by default), or null. */
export function parseTarget(text: string): { host: string; port: number } | null {
  const t = text.trim();
  let host = t;
  let port = 53;
  const v6 = /^\[([^\]]+)\](?::(\d+))?$/.exec(t);
  if (v6) {
    host = v6[1]!;
    if (v6[2]) port = Number(v6[2]);
  } else if (isIP(t) === 0) {
    const m = /^([^:]+):(\d+)$/.exec(t);
    if (!m) return null;
    host = m[1]!;
    port = Number(m[2]);
  }
  if (isIP(host) === 0 || !Number.isInteger(port) || port < 1 || port > 65535) return null;
  return { host, port };
}

/**
 * Compiles the exception rules into the agent's router (spec-notes §4: device exceptions take
 * precedence): for a query's name and the asking program's address, the first rule in id order
 * whose domain covers the name (the name itself or a parent; empty: any) and whose source range
 * covers the address (empty: any) decides: `ByPass OTG` → the system resolver, `Use Specific
 * Resolver` → its resolver. A rule with an unusable resolver or range is skipped. Else Cordon.
 */
export function compileRules(rules: readonly AgentRule[]): (qname: string, clientIp: string) => Route {
  const compiled = [...rules]
    .sort((a, b) => a.id - b.id)
    .flatMap((r) => {
      const range = r.ip === '' ? null : parseCidr(r.ip);
      if (r.ip !== '' && range === null) return [];
      let route: Route;
      if (r.rule_type === 'ByPass OTG') route = { kind: 'system', ruleId: r.id };
      else {
        const target = parseTarget(r.resolver);
        if (target === null) return [];
        route = { kind: 'resolver', ...target, ruleId: r.id };
      }
      return [{ domain: r.domain.toLowerCase().replace(/\.$/, ''), range, route }];
    });
  if (compiled.length === 0) return () => CORDON;
  return (qname, clientIp) => {
    const ip = canonicalIp(clientIp);
    for (const r of compiled) {
      if (r.domain !== '' && qname !== r.domain && !qname.endsWith(`.${r.domain}`)) continue;
      if (r.range !== null && !inRange(ip, r.range)) continue;
      return r.route;
    }
    return CORDON;
  };
}

function inRange(ip: string, range: NonNullable<ReturnType<typeof parseCidr>>): boolean {
  const addr = parseCidr(ip);
  if (addr === null || addr.family !== range.family) return false;
  return addr.first >= range.first && addr.first <= range.last;
}

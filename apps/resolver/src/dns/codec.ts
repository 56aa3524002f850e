import dnsPacket, { type Answer } from 'dns-packet';

/**
 * dns-packet's record and name encoders, which it exports at runtime but its type declarations
 * omit. Used off the hot path only: compiling upstream answers and the blocked-answer templates.
 */
export const codec = dnsPacket as unknown as {
  /** Encodes one resource record (RFC 1035 §4.1.3) into a new Buffer. @throws on invalid data */
  answer: { encode(rr: Answer): Buffer };
  /** Encodes a domain name uncompressed (RFC 1035 §3.1) into a new Buffer. */
  name: { encode(name: string): Buffer };
};

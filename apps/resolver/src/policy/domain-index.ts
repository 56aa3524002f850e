/**
 * A domain list compiled for the hot path (docs/architecture.md "Decision order"): an entry matches
 * its own name and, when it says "include subdomains", every name below it; of several matching
 * entries the longest wins. Built once per snapshot, then only read.
 *
 * Layout: two maps keyed by the normalised name (lower case, no trailing dot: `normalizeDomain` of
 * `@cordon/shared`) — entries that match the name only, and entries that also match subdomains. A
 * lookup probes the qname itself, then each parent suffix from the longest down, so the first hit is
 * the longest match. An empty index answers without touching the qname.
 */
export class DomainIndex<T> {
  private readonly exact = new Map<string, T>();
  private readonly subtree = new Map<string, T>();

  /** Entries added (a name added twice with the same scope counts once). */
  get size(): number {
    return this.exact.size + this.subtree.size;
  }

  /**
   * Adds an entry. The first add of a (name, scope) keeps its value; later ones are ignored, so a
   * loader adding rows in id order makes the oldest entry win.
   * @param domain a normalised name (lower case, no trailing dot)
   * @param includeSubdomains true: the entry also matches every name below `domain`
   */
  add(domain: string, value: T, includeSubdomains: boolean): void {
    const map = includeSubdomains ? this.subtree : this.exact;
    if (domain.length > 0 && !map.has(domain)) map.set(domain, value);
  }

  /**
   * The value of the longest entry matching `qname` (normalised), or undefined. An exact-only entry
   * matches `qname` itself only; a subtree entry matches it and its subdomains.
   */
  lookup(qname: string): T | undefined {
    if (this.exact.size !== 0) {
      const hit = this.exact.get(qname);
      if (hit !== undefined) return hit;
    }
    if (this.subtree.size === 0) return undefined;
    const self = this.subtree.get(qname);
    if (self !== undefined) return self;
    let dot = qname.indexOf('.');
    while (dot >= 0) {
      const hit = this.subtree.get(qname.slice(dot + 1));
      if (hit !== undefined) return hit;
      dot = qname.indexOf('.', dot + 1);
    }
    return undefined;
  }
}

/** An allow list and a block list of one owner (a policy, an MSP, the system). */
export interface DomainLists {
  readonly allow: DomainIndex<true>;
  readonly block: DomainIndex<true>;
}

/** Lists with no entries: every rule reading them passes at once (a do-nothing stand-in). */
export const NO_LISTS: DomainLists = Object.freeze({ allow: new DomainIndex<true>(), block: new DomainIndex<true>() });

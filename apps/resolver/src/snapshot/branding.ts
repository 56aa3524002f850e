import { sql } from 'kysely';
import { big, type SnapshotPart, tableDigest } from './part.ts';

/** The texts of one level's block page ('' = not set at this level). */
export interface BlockPageTexts {
  readonly title: string;
  readonly message: string;
  readonly footer: string;
  readonly support_contact: string;
  /** Hex SHA-256 of the level's logo ('' = none): the page's logo URL is `/.cordon/logo/<hash>`. */
  readonly logo_sha256: string;
}

/** Block-page branding by owner: customer id → texts, MSP id → texts, and the system's (null: none). */
export interface BrandingSnapshot {
  readonly customer: ReadonlyMap<number, BlockPageTexts>;
  readonly msp: ReadonlyMap<number, BlockPageTexts>;
  readonly system: BlockPageTexts | null;
  /**
   * The support contact of each MSP's and of the system's support settings (spec-notes §7 `/ui/support`:
   * its e-mail, else its support desk URL, else its link): the page's contact when no block page
   * of the client's levels names one.
   */
  readonly supportByMsp: ReadonlyMap<number, string>;
  readonly systemSupport: string;
}

const FIELDS = ['title', 'message', 'footer', 'support_contact', 'logo_sha256'] as const;

/**
 * The texts the block page shows a client of customer `customerId` of MSP `mspId` (spec-notes §7
 * `/ui/blockpage`): each field from the customer's branding, else its MSP's, else the system's;
 * '' when no level sets it (the page then uses its built-in text). Without a customer (an unknown
 * client), only the system's applies. With no block page naming a support contact, the MSP's
 * support settings give it, else the system's.
 */
export function brandingFor(
  snapshot: BrandingSnapshot,
  customerId: number | null,
  mspId: number | null,
): BlockPageTexts {
  const levels = [
    customerId === null ? undefined : snapshot.customer.get(customerId),
    mspId === null ? undefined : snapshot.msp.get(mspId),
    snapshot.system ?? undefined,
  ];
  const out = { title: '', message: '', footer: '', support_contact: '', logo_sha256: '' };
  for (const field of FIELDS) {
    for (const level of levels) {
      if (level !== undefined && level[field] !== '') {
        out[field] = level[field];
        break;
      }
    }
  }
  if (out.support_contact === '') {
    out.support_contact = (mspId === null ? undefined : snapshot.supportByMsp.get(mspId)) || snapshot.systemSupport;
  }
  return out;
}

/**
 * Block-page branding (spec-notes §7 `/ui/blockpage`; migration 0010): every row of `blockpages`, a few
 * per tenant at most, so a change re-reads it whole (with the `ui_support` contacts); logos by their hash only (the page fetches the
 * bytes when a browser asks, docs/architecture.md "Block page"). Follows the `blockpages` topic.
 */
export const brandingPart: SnapshotPart<BrandingSnapshot> = {
  name: 'branding',
  topics: ['blockpages'],
  empty: () => ({ customer: new Map(), msp: new Map(), system: null, supportByMsp: new Map(), systemSupport: '' }),
  load: async (handle) => {
    const rows = await handle.db
      .selectFrom('blockpages')
      .select(['customer_id', 'msp_id', 'title', 'message', 'footer', 'support_contact', 'logo_sha256'])
      .orderBy('id')
      .execute();
    const customer = new Map<number, BlockPageTexts>();
    const msp = new Map<number, BlockPageTexts>();
    let system: BlockPageTexts | null = null;
    for (const r of rows) {
      const texts = Object.freeze({
        title: r.title,
        message: r.message,
        footer: r.footer,
        support_contact: r.support_contact,
        logo_sha256: r.logo_sha256 ?? '',
      });
      if (r.customer_id !== null) customer.set(r.customer_id, texts);
      else if (r.msp_id !== null) msp.set(r.msp_id, texts);
      else system = texts;
    }
    const support = await handle.db
      .selectFrom('ui_support')
      .select(['msp_id', 'email', 'link', 'support_desk_url'])
      .execute();
    const supportByMsp = new Map<number, string>();
    let systemSupport = '';
    for (const r of support) {
      const contact = r.email || r.support_desk_url || r.link;
      if (contact === '') continue;
      if (r.msp_id === null) systemSupport = contact;
      else supportByMsp.set(r.msp_id, contact);
    }
    return { customer, msp, system, supportByMsp, systemSupport };
  },
  digest: (handle) =>
    tableDigest(handle, [
      { table: 'blockpages', rows: [big(sql.ref('id'))], stamps: ['updated_at'] },
      { table: 'ui_support', rows: [sql`coalesce(${big(sql.ref('msp_id'))}, 0)`], stamps: ['updated_at'] },
    ]),
};

import { type AuditEntry, categoryById } from '@cordon/shared';

/** The i18next `t` as the phrasing needs it (values are interpolated; the console escapes nothing twice). */
export type AuditT = (key: string, values?: Record<string, string | number>) => string;

/** The fields of an audit row the phrasing reads. */
export type AuditPhraseEntry = Pick<
  AuditEntry,
  'action' | 'entity' | 'entity_id' | 'before' | 'after' | 'admin_email' | 'api_token_name'
>;

/** Actions said in a sentence of their own (`audit.phrases.<action, dots as _>`), in both catalogues. */
const OWN_PHRASES = new Set([
  'auth.login',
  'auth.login_failed',
  'auth.logout_all',
  'auth.password_reset_requested',
  'auth.password_reset',
  'auth.recovery_code_used',
  'admin.register',
  'admin.password_change',
  'admin.2fa_enable',
  'admin.2fa_disable',
  'admin.2fa_reset',
  'admin.2fa_recovery_codes',
  'admin.profile',
  'msp.2fa_enforce',
  // Built, not written out: 'mail.…' literals read as keys of the mail strings (messages.test.ts).
  ...['update', 'delete'].map((verb) => `mail.${verb}`),
  'categories.import',
]);

/** Entities with a translated name (`audit.entities.<entity>`); others are shown as written, `_` as spaces. */
const ENTITIES = new Set([
  'policy',
  'default_policy',
  'customer',
  'msp',
  'location',
  'device',
  'group',
  'admin',
  'domain',
  'cloudkey',
  'internal_user',
  'device_exception',
  'staticroute',
  'feed',
  'webhook',
  'scheduledreport',
  'blockpage',
  'log_stream',
  'api_token',
  'category',
]);

/** Fields never worth a word: bookkeeping the reader did not change. */
const SILENT_FIELDS = new Set(['id', 'created_at', 'updated_at', 'locations', 'user_id', 'msp_id', 'customer_id']);
/** The fields said first, in this order (the rest keep the row's order). */
const LEADING_FIELDS = ['blocked', 'name', 'filtering_level'];
/** Changed fields listed before "and N more". */
const MAX_CHANGES = 4;

type Json = Record<string, unknown>;

function parse(text: string | null): Json | null {
  if (!text) return null;
  try {
    const value: unknown = JSON.parse(text);
    return value !== null && typeof value === 'object' && !Array.isArray(value) ? (value as Json) : null;
  } catch {
    return null;
  }
}

/** The name a row's object goes by: its name, account name (either spelling), e-mail, domain or title; null when none. */
function nameOf(before: Json | null, after: Json | null): string | null {
  for (const obj of [after, before]) {
    if (!obj) continue;
    for (const key of ['name', 'accountName', 'account_name', 'email', 'domain', 'title']) {
      const v = obj[key];
      if (typeof v === 'string' && v !== '') return v;
    }
  }
  return null;
}

function entityLabel(entity: string, t: AuditT): string {
  return ENTITIES.has(entity) ? t(`audit.entities.${entity}`) : entity.replaceAll('_', ' ');
}

/** Category names in the interface language (`categoryNames.<id>`, as components/categoryName.ts); an unknown id as `#id`. */
function categoryNames(ids: readonly number[], t: AuditT): string {
  return ids.map((id) => (categoryById(id) ? t(`categoryNames.${id}`) : `#${id}`)).join(', ');
}

function numberList(v: unknown): number[] | null {
  return Array.isArray(v) && v.every((x) => typeof x === 'number') ? (v as number[]) : null;
}

/** "blocked Gambling, Games; allowed News" from two blocked-id lists. */
function categoryChanges(before: readonly number[], after: readonly number[], t: AuditT): string[] {
  const was = new Set(before);
  const now = new Set(after);
  const blocked = after.filter((id) => !was.has(id));
  const allowed = before.filter((id) => !now.has(id));
  const out: string[] = [];
  if (blocked.length > 0) out.push(t('audit.changes.blocked', { categories: categoryNames(blocked, t) }));
  if (allowed.length > 0) out.push(t('audit.changes.allowed', { categories: categoryNames(allowed, t) }));
  return out;
}

function levelLabel(v: unknown, t: AuditT): string {
  return typeof v === 'string' && ['low', 'moderate', 'high', 'custom'].includes(v)
    ? t(`filteringLevels.${v}`)
    : String(v);
}

/** The changes between `before` and `after`, in words, most telling first. */
function fieldChanges(before: Json, after: Json, t: AuditT): string[] {
  const out: string[] = [];
  const first = (k: string) => {
    const i = LEADING_FIELDS.indexOf(k);
    return i < 0 ? LEADING_FIELDS.length : i;
  };
  const keys = [...new Set([...Object.keys(before), ...Object.keys(after)])]
    .filter((k) => !SILENT_FIELDS.has(k))
    .sort((x, y) => first(x) - first(y));
  for (const key of keys) {
    const a = before[key];
    const b = after[key];
    if (JSON.stringify(a) === JSON.stringify(b)) continue;
    const blockedBefore = numberList(a);
    const blockedAfter = numberList(b);
    if (key === 'blocked' && blockedBefore && blockedAfter) {
      out.push(...categoryChanges(blockedBefore, blockedAfter, t));
    } else if (key === 'name' && typeof b === 'string') {
      out.push(t('audit.changes.renamed', { name: b }));
    } else if (key === 'filtering_level') {
      out.push(t('audit.changes.level', { from: levelLabel(a, t), to: levelLabel(b, t) }));
    } else if (typeof b === 'boolean') {
      const field = t(`audit.fields.${key}`, { defaultValue: key.replaceAll('_', ' ') });
      out.push(t(b ? 'audit.changes.turnedOn' : 'audit.changes.turnedOff', { field }));
    } else {
      out.push(
        t('audit.changes.field', { field: t(`audit.fields.${key}`, { defaultValue: key.replaceAll('_', ' ') }) }),
      );
    }
  }
  return out;
}

function joinChanges(changes: string[], t: AuditT): string {
  if (changes.length <= MAX_CHANGES) return changes.join('; ');
  return `${changes.slice(0, MAX_CHANGES).join('; ')}; ${t('audit.changes.more', { count: changes.length - MAX_CHANGES })}`;
}

/**
 * An audit row in words (issue 29: "Alice changed policy Students: blocked Gambling"), from its
 * action, entity and before/after as core's `mutate()` writes them (docs/api.md "Audit log"): who
 * (`who`, e.g. {@link auditActor}'s text), the verb of the action's last part (create, update,
 * delete; a few actions have a sentence of their own), the object's kind and name, and for an
 * update what changed — categories blocked and allowed by name, the protection level, renames,
 * switches turned on or off, other fields by name. Unknown actions fall back to the action code.
 */
export function describeAudit(entry: AuditPhraseEntry, who: string, t: AuditT): string {
  const before = parse(entry.before);
  const after = parse(entry.after);
  const name = nameOf(before, after);
  if (OWN_PHRASES.has(entry.action)) {
    return t(`audit.phrases.${entry.action.replaceAll('.', '_')}`, { who, name: name ?? '' });
  }
  const entity = entityLabel(entry.entity, t);
  const verb = entry.action.split('.').at(-1);
  const subject =
    name !== null
      ? t('audit.subject', { entity, name })
      : entry.entity_id !== null
        ? t('audit.subjectId', { entity, id: entry.entity_id })
        : entity;
  if (verb === 'create') return t('audit.verbs.create', { who, subject });
  if (verb === 'delete') return t('audit.verbs.delete', { who, subject });
  if (verb === 'update') {
    const changes = before && after ? fieldChanges(before, after, t) : [];
    return changes.length === 0
      ? t('audit.verbs.update', { who, subject })
      : t('audit.verbs.updateWith', { who, subject, changes: joinChanges(changes, t) });
  }
  return t('audit.verbs.other', { who, subject, action: entry.action });
}

/**
 * What an operator expects to find again after a restore or an upgrade (docs/operations.md "Backup and
 * restore", "Upgrades"), read through a running Cordon's `/restapi` as the system admin: every MSP,
 * customer, policy, allow/block-list entry and static-IP location, and the root CA certificate.
 */
import type { ApiSession } from '../../../../e2e/support/api.ts';

/** The tenants and their filtering, in id order, without timestamps; and the root CA (PEM). */
export interface DeploymentState {
  msps: Array<{ id: number; name: string; company_name: string }>;
  customers: Array<{ id: number; accountName: string; timezone: string; msp_id: number; default_policy_id: number }>;
  policies: Array<{ id: number; user_id: number; name: string; filtering_level: string; is_default: boolean }>;
  lists: Array<{ id: number; policyid: number; object: string; domain: string; include_subdomains: boolean }>;
  locations: Array<{ id: number; customer: number; name: string; policy_id: number | null; addresses: string[] }>;
  rootCa: string;
}

type Page<T> = { data: T[]; total: number };

async function get<T>(api: ApiSession, path: string): Promise<T> {
  const res = await api.call('GET', path);
  if (res.status !== 200) throw new Error(`GET ${path}: ${res.status} ${JSON.stringify(res.body)}`);
  return res.body as T;
}

/** Every row of a paged `/restapi` list, 1,000 at a time (a list under load grows past one page). */
async function all<T>(api: ApiSession, path: string): Promise<{ data: T[] }> {
  const data: T[] = [];
  const joiner = path.includes('?') ? '&' : '?';
  for (;;) {
    const page = await get<Page<T>>(api, `${path}${joiner}limit=1000&offset=${data.length}`);
    data.push(...page.data);
    if (page.data.length === 0 || data.length >= page.total) return { data };
  }
}

/**
 * Reads the state through `api` (a system admin's session) at `httpPort`.
 * @throws Error when a call fails
 */
export async function readDeploymentState(api: ApiSession, httpPort: number): Promise<DeploymentState> {
  const pick = <T extends object, K extends keyof T>(rows: T[], keys: K[]) =>
    rows
      .map((r) => Object.fromEntries(keys.map((k) => [k, r[k]])) as Pick<T, K>)
      .sort((a, b) => Number((a as { id?: number }).id) - Number((b as { id?: number }).id));
  const msps = (await all<DeploymentState['msps'][number]>(api, '/msp')).data;
  const customers = (await all<DeploymentState['customers'][number]>(api, '/users')).data;
  const policies: DeploymentState['policies'] = [];
  const lists: DeploymentState['lists'] = [];
  const locations: DeploymentState['locations'] = [];
  for (const c of customers) {
    const own = (await all<DeploymentState['policies'][number]>(api, `/policies?user_id=${c.id}`)).data;
    policies.push(...own);
    for (const p of own) {
      for (const kind of ['block', 'allow']) {
        const entries = await all<DeploymentState['lists'][number]>(
          api,
          `/policies/${p.id}/domains/${kind}?user_id=${c.id}`,
        );
        lists.push(...entries.data);
      }
    }
    const located = await all<{ id: number; name: string; policy_id: number | null; addresses: { ip: string }[] }>(
      api,
      `/users/${c.id}/locations/staticip`,
    );
    for (const l of located.data) {
      locations.push({
        id: l.id,
        customer: c.id,
        name: l.name,
        policy_id: l.policy_id,
        addresses: l.addresses.map((a) => a.ip),
      });
    }
  }
  const ca = await fetch(`http://127.0.0.1:${httpPort}/restapi/certificates/machine/download`, {
    headers: { authorization: `Bearer ${api.token}` },
  });
  if (ca.status !== 200) throw new Error(`root CA download: ${ca.status}`);
  return {
    msps: pick(msps, ['id', 'name', 'company_name']),
    customers: pick(customers, ['id', 'accountName', 'timezone', 'msp_id', 'default_policy_id']),
    policies: pick(policies, ['id', 'user_id', 'name', 'filtering_level', 'is_default']),
    lists: pick(lists, ['id', 'policyid', 'object', 'domain', 'include_subdomains']),
    locations: locations.sort((a, b) => a.id - b.id),
    rootCa: await ca.text(),
  };
}

/**
 * Provisions a new customer of an MSP with a policy and a static-IP location, using an MSP admin's
 * API token (packages/sdk/README.md; docs/api.md "API tokens"). Run it with
 * `CORDON_URL=https://cordon.example.net CORDON_TOKEN=cdn_… npx tsx packages/sdk/examples/provision.ts`;
 * packages/sdk/test/provision.test.ts runs the same function against a real API.
 */
import { CordonApiError, type CordonClient, createClient, Endpoints } from '@cordon/sdk';

/** What to provision: the customer's name and its office's public address (a /32 or up to a /24). */
export interface ProvisionInput {
  readonly customerName: string;
  readonly officeAddress: string;
}

/**
 * Creates the customer (in the token's MSP), a `moderate` policy and a static-IP location for the
 * office that uses it.
 * @returns the three created objects, as the API answered them
 * @throws CordonApiError when a call is refused (e.g. 409 for an address another customer claims)
 */
export async function provision(cordon: CordonClient, input: ProvisionInput) {
  // The generic call, typed by the endpoint descriptor...
  const customer = await cordon.call(Endpoints.customers.create, {
    body: { accountName: input.customerName, timezone: 'Europe/Paris' },
  });
  // ...or the same through the namespaces.
  const policy = await cordon.api.policies.create({
    body: { user_id: customer.id, name: 'Office hours', filtering_level: 'moderate' },
  });
  const location = await cordon.api.locations.createStatic({
    params: { id: customer.id },
    body: { name: 'Head office', policy_id: policy.id, addresses: [input.officeAddress] },
  });
  return { customer, policy, location };
}

// Run directly: read the deployment and the token from the environment.
if (import.meta.url === `file://${process.argv[1]}`) {
  const cordon = createClient({ baseUrl: process.env['CORDON_URL'] ?? '', token: process.env['CORDON_TOKEN'] ?? '' });
  try {
    const made = await provision(cordon, { customerName: 'Acme Bakery', officeAddress: '203.0.113.10' });
    console.log(`customer ${made.customer.id}, policy ${made.policy.id}, location ${made.location.id}`);
  } catch (err) {
    if (!(err instanceof CordonApiError)) throw err;
    console.error(`${err.status} ${err.code}: ${err.message}`);
    process.exitCode = 1;
  }
}

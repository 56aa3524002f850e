import { z } from 'zod';
import { ipOrCidrMessage, Messages } from '../messages.ts';
import { canonicalIp, isDomainName, isIpAddress, looksLikeUrl, normalizeCidr } from '../net.ts';
import { idSchema, listQuerySchema, optionalText, requiredText, safeName } from './common.ts';

/**
 * Devices, device exceptions, groups and internal users (spec-notes §3 "Device", "Device exception",
 * "Exception rule", "Group", "Internal user"; spec-notes §7 "Devices", "Device exceptions", "Groups and
 * internal users"; docs/decisions.md "Environment").
 */

/**
 * How a device (or the customer's device configuration) picks its policy (spec-notes §4 "Policy
 * inheritance choices"): `default` inherits the default policy, `group` inherits the user's group
 * or else the default policy, `policy` names one (`policy_id`).
 */
export const POLICY_MODES = ['default', 'group', 'policy'] as const;
export type PolicyMode = (typeof POLICY_MODES)[number];

/** Exception rule types (spec-notes §3 "Exception rule"). */
export const RULE_TYPES = ['ByPass OTG', 'Use Specific Resolver'] as const;
export type RuleType = (typeof RULE_TYPES)[number];

/** Path params `{ id, deviceId }` of `/users/{id}/devices/{deviceId}`. */
export const deviceParamsSchema = z.object({ id: idSchema, deviceId: idSchema });

/** Query of `GET /users/{id}/devices` (spec-notes §7): policyid, location_id and the list query. */
export const deviceListQuerySchema = listQuerySchema.extend({
  policyid: idSchema.optional(),
  location_id: idSchema.optional(),
});
export type DeviceListQuery = z.infer<typeof deviceListQuerySchema>;

/**
 * A device (spec-notes §3 "Device"). `policy` is the name of the policy it gets without a user
 * (named, else the customer's device configuration, else the default policy); `exception` the name
 * of its device exception (own, else the customer's); `configuration` its advanced JSON
 * configuration (text) or null — while set, its details are locked (spec-notes §4). `last_contact` is
 * ISO-8601 UTC or null before the first heartbeat.
 */
export const deviceSchema = z.object({
  id: z.number().int(),
  name: z.string(),
  key: z.string(),
  dns_name: z.string(),
  tag: z.string(),
  version: z.string(),
  os_type: z.string(),
  last_contact: z.string().nullable(),
  last_ip: z.string(),
  location_id: z.number().int().nullable(),
  location_name: z.string().nullable(),
  policy: z.string(),
  policy_id: z.number().int().nullable(),
  policy_mode: z.enum(POLICY_MODES),
  exception: z.string().nullable(),
  device_exception_id: z.number().int().nullable(),
  extra_info: z.record(z.string(), z.unknown()),
  configuration: z.string().nullable(),
  created_at: z.string(),
});
export type Device = z.infer<typeof deviceSchema>;

/** Body of `POST /users/{id}/devices/{deviceId}` (an update): details and configuration. */
export const deviceUpdateSchema = z.object({
  name: safeName.optional(),
  tag: optionalText.optional(),
  policy_mode: z.enum(POLICY_MODES).optional(),
  policy_id: idSchema.nullable().optional(),
  device_exception_id: idSchema.nullable().optional(),
});
export type DeviceUpdate = z.infer<typeof deviceUpdateSchema>;

/**
 * Agent-reported users one device may hold (docs/security.md "Identity claims"): a heartbeat
 * reporting one more is refused (the device's own policy applies) and counted.
 */
export const DEVICE_AGENT_USER_CAP = 10;
/** Users an admin may bind to one device. */
export const DEVICE_ADMIN_USER_CAP = 100;

/** One user a device may assert (EDNS(0) option 65074, the heartbeat's `user`), and who bound it. */
export const deviceUserSchema = z.object({
  id: z.number().int(),
  name: z.string(),
  /** `admin`: bound by an admin; `agent`: reported by the device's agent at heartbeat. */
  source: z.enum(['admin', 'agent']),
  created_at: z.string(),
});

/**
 * Answer of `GET|PUT /users/{id}/devices/{deviceId}/users` (docs/api.md "Device users"): the users the
 * device may assert, the heartbeat user reports refused so far, and the per-device agent cap.
 */
export const deviceUsersSchema = z.object({
  users: z.array(deviceUserSchema),
  user_reports_refused: z.number().int(),
  agent_user_cap: z.number().int(),
});
export type DeviceUsers = z.infer<typeof deviceUsersSchema>;

/**
 * Body of `PUT /users/{id}/devices/{deviceId}/users`: the complete set of users the device may assert
 * (internal users of the same customer). Users already bound keep their source; the others are bound
 * by the admin; bound users left out are unbound.
 */
export const deviceUsersUpdateSchema = z.object({
  user_ids: z
    .array(idSchema)
    .max(DEVICE_ADMIN_USER_CAP, { error: `Must contain at most ${DEVICE_ADMIN_USER_CAP} users.` }),
});
export type DeviceUsersUpdate = z.infer<typeof deviceUsersUpdateSchema>;

/**
 * An advanced JSON configuration (spec-notes §7 "The payload is configuration"): text that must parse as
 * JSON (spec-notes §5 "Must contain valid JSON."), stored re-serialised; at most 64 KiB.
 */
export const advancedConfigSchema = z.object({
  configuration: z
    .string({ error: Messages.required })
    .trim()
    .min(1, { error: Messages.required })
    .max(65_536, { error: 'Must contain at most 65536 characters.' })
    .refine(
      (v) => {
        try {
          JSON.parse(v);
          return true;
        } catch {
          return false;
        }
      },
      { error: Messages.invalidJson },
    ),
});
export type AdvancedConfig = z.infer<typeof advancedConfigSchema>;

/** Answer of the advanced-configuration calls: the JSON text, or null when none is set. */
export const advancedConfigResponseSchema = z.object({ configuration: z.string().nullable() });

/**
 * The customer's device configuration (spec-notes §7 `GET /users/{id}/devices/config`): the install key
 * (spec-notes §3 "one-time key") and when it was made, the policy choice and device exception new and
 * inheriting devices get, and the advanced JSON configuration.
 */
export const deviceConfigSchema = z.object({
  install_key: z.string(),
  install_key_created_at: z.string(),
  policy_mode: z.enum(POLICY_MODES),
  policy_id: z.number().int().nullable(),
  device_exception_id: z.number().int().nullable(),
  configuration: z.string().nullable(),
});
export type DeviceConfig = z.infer<typeof deviceConfigSchema>;

/**
 * Answer of `GET|POST /users/{id}/devices/config`: the configuration and the deployment's public DoH
 * base URL an agent needs for `--doh` (`cordon serve --doh-public-url`), or null when the operator has
 * not set it (docs/agent.md "Install"). An extension of the specification's answer.
 */
export const deviceConfigAnswerSchema = deviceConfigSchema.extend({ agent_doh_url: z.string().nullable() });
export type DeviceConfigAnswer = z.infer<typeof deviceConfigAnswerSchema>;

/** Body of `POST /users/{id}/devices/config` (spec-notes §7: policy_id and device_exception_id). */
export const deviceConfigUpdateSchema = z.object({
  policy_mode: z.enum(POLICY_MODES).optional(),
  policy_id: idSchema.nullable().optional(),
  device_exception_id: idSchema.nullable().optional(),
});
export type DeviceConfigUpdate = z.infer<typeof deviceConfigUpdateSchema>;

/** Answer of `PUT /users/{id}/devices/key`: the new install key. */
export const installKeySchema = z.object({ install_key: z.string(), install_key_created_at: z.string() });

/** Query `user_id` of `/device_exceptions` (spec-notes §7); a customer admin may leave it out. */
export const userIdQuerySchema = z.object({ user_id: idSchema.optional() });

/** Query of `GET /device_exceptions`: user_id and the list query. */
export const deviceExceptionListQuerySchema = listQuerySchema.extend({ user_id: idSchema.optional() });

/** A device exception (spec-notes §3) with its device and rule counts. */
export const deviceExceptionSchema = z.object({
  id: z.number().int(),
  user_id: z.number().int(),
  name: z.string(),
  description: z.string(),
  created_at: z.string(),
  updated_at: z.string(),
  devices_count: z.number().int(),
  rules_count: z.number().int(),
});
export type DeviceException = z.infer<typeof deviceExceptionSchema>;

/** Body of `POST /device_exceptions`. */
export const deviceExceptionCreateSchema = z.object({ name: safeName, description: optionalText.default('') });
export type DeviceExceptionCreate = z.infer<typeof deviceExceptionCreateSchema>;
/** Body of `PUT /device_exceptions/{id}`. */
export const deviceExceptionUpdateSchema = deviceExceptionCreateSchema.partial();
export type DeviceExceptionUpdate = z.infer<typeof deviceExceptionUpdateSchema>;

/** Path params `{ id, ruleId }` of `/device_exceptions/{id}/rules/{ruleId}`. */
export const ruleParamsSchema = z.object({ id: idSchema, ruleId: idSchema });

/** An exception rule (spec-notes §3 "Exception rule"). */
export const exceptionRuleSchema = z.object({
  id: z.number().int(),
  domain: z.string(),
  ip: z.string(),
  resolver: z.string(),
  rule_type: z.enum(RULE_TYPES),
  description: z.string(),
  created_at: z.string(),
  updated_at: z.string(),
});
export type ExceptionRule = z.infer<typeof exceptionRuleSchema>;

/** A resolver address, `ip` or `ip:port` (`[v6]:port`), normalised to canonical text. */
export function normalizeResolver(value: string): string | null {
  const v = value.trim();
  const bracket = /^\[([^\]]+)\](?::(\d{1,5}))?$/.exec(v);
  const v4port = /^(\d{1,3}(?:\.\d{1,3}){3}):(\d{1,5})$/.exec(v);
  const host = bracket ? bracket[1] : v4port ? v4port[1] : v;
  const port = bracket ? bracket[2] : v4port ? v4port[2] : undefined;
  if (host === undefined || !isIpAddress(host)) return null;
  if (port !== undefined && (Number(port) < 1 || Number(port) > 65_535)) return null;
  const cidr = normalizeCidr(canonicalIp(host));
  if (cidr === null) return null;
  const ip = cidr.replace(/\/\d+$/, '');
  if (port === undefined || port === '53') return ip;
  return ip.includes(':') ? `[${ip}]:${Number(port)}` : `${ip}:${Number(port)}`;
}

const ruleDomainSchema = z
  .string()
  .trim()
  .refine((v) => v === '' || !looksLikeUrl(v), { error: Messages.domainOnly })
  .refine((v) => v === '' || isDomainName(v, { allowSingleLabel: true }), { error: Messages.domainOnly })
  .transform((v) => v.toLowerCase().replace(/^\.+|\.+$/g, ''));

/** A rule's source IP or CIDR (spec-notes §5 "{field} must be valid IP or CIDR."), canonical; '' for any. */
const ruleIpSchema = z
  .string()
  .trim()
  .refine((v) => v === '' || normalizeCidr(v) !== null, { error: ipOrCidrMessage('IP') })
  .transform((v) => (v === '' ? '' : (normalizeCidr(v) as string)));

const resolverSchema = z
  .string()
  .trim()
  .refine((v) => v === '' || normalizeResolver(v) !== null, { error: Messages.invalidIp })
  .transform((v) => (v === '' ? '' : (normalizeResolver(v) as string)));

/**
 * Body of `POST /device_exceptions/{id}/rules`: a domain (spec-notes §5 domain rule) or a source IP (or
 * both), the rule type and, for `Use Specific Resolver`, the resolver (spec-notes §5 "{field} required
 * unless {other_field} is provided.", "Must be valid IP address.").
 */
export const exceptionRuleCreateSchema = z
  .object({
    domain: ruleDomainSchema.default(''),
    ip: ruleIpSchema.default(''),
    resolver: resolverSchema.default(''),
    rule_type: z.enum(RULE_TYPES, { error: 'Please select an option.' }),
    description: optionalText.default(''),
  })
  .superRefine((r, ctx) => {
    if (r.domain === '' && r.ip === '') {
      ctx.addIssue({ code: 'custom', path: ['domain'], message: 'Domain required unless IP is provided.' });
    }
    if (r.rule_type === 'Use Specific Resolver' && r.resolver === '') {
      ctx.addIssue({ code: 'custom', path: ['resolver'], message: Messages.required });
    }
  });
export type ExceptionRuleCreate = z.infer<typeof exceptionRuleCreateSchema>;

/** Body of `PUT /device_exceptions/{id}/rules/{ruleId}`: the whole rule, as on creation. */
export const exceptionRuleUpdateSchema = exceptionRuleCreateSchema;

/** Path params `{ id, groupId }` of `/users/{id}/groups/{groupId}`. */
export const groupParamsSchema = z.object({ id: idSchema, groupId: idSchema });

/**
 * A group (spec-notes §3 "Group"): `policy` is its policy's name ('' without one); `weight` its rank
 * (1 is the highest, spec-notes §4); `disable` true when it is off; `last_updated` and `last_modified`
 * are the same ISO-8601 UTC time of its last change; `users_count` its members.
 */
export const groupSchema = z.object({
  id: z.number().int(),
  name: z.string(),
  description: z.string(),
  policy_id: z.number().int().nullable(),
  policy: z.string(),
  weight: z.number().int(),
  disable: z.boolean(),
  users_count: z.number().int(),
  last_updated: z.string(),
  last_modified: z.string(),
});
export type Group = z.infer<typeof groupSchema>;

/** Body of `POST /users/{id}/groups` (docs/api.md: the spec's creation path was a defect). */
export const groupCreateSchema = z.object({
  name: safeName,
  description: optionalText.default(''),
  policyid: idSchema.nullable().default(null),
  disable: z.boolean().default(false),
});
export type GroupCreate = z.infer<typeof groupCreateSchema>;

/** Body of `PUT /users/{id}/groups/{groupId}` (spec-notes §7: policyid and description; the ranking sends weight). */
export const groupUpdateSchema = z.object({
  name: safeName.optional(),
  description: optionalText.optional(),
  policyid: idSchema.nullable().optional(),
  disable: z.boolean().optional(),
  weight: z.number().int().min(1, { error: Messages.positiveInteger }).max(1_000_000).optional(),
});
export type GroupUpdate = z.infer<typeof groupUpdateSchema>;

/** Path params `{ id, userId }` of `/users/{id}/users/{userId}`. */
export const internalUserParamsSchema = z.object({ id: idSchema, userId: idSchema });

/** Query of `GET /users/{id}/users/` (spec-notes §7): group_id and the list query. */
export const internalUserListQuerySchema = listQuerySchema.extend({ group_id: idSchema.optional() });
export type InternalUserListQuery = z.infer<typeof internalUserListQuerySchema>;

/**
 * An internal user (spec-notes §3 "Internal user"): the OS user name an agent reported, the user's own
 * policy (`policyid`, `policy` its name, '' without one), the groups it belongs to (`group_ids`) and
 * its effective group (`group_id`, `group`: the enabled group highest in the ranking), `role`
 * (always `user`), and the last login time (ISO-8601 UTC) and address.
 */
export const internalUserSchema = z.object({
  id: z.number().int(),
  name: z.string(),
  description: z.string(),
  policyid: z.number().int().nullable(),
  policy: z.string(),
  group_id: z.number().int().nullable(),
  group: z.string().nullable(),
  group_ids: z.array(z.number().int()),
  role: z.string(),
  last_login: z.string().nullable(),
  last_login_ip: z.string(),
});
export type InternalUser = z.infer<typeof internalUserSchema>;

/** Body of `POST /users/{id}/users/{userId}` (spec-notes §7: policyid and description; and the groups). */
export const internalUserUpdateSchema = z.object({
  policyid: idSchema.nullable().optional(),
  description: optionalText.optional(),
  group_ids: z.array(idSchema).max(1000).optional(),
});
export type InternalUserUpdate = z.infer<typeof internalUserUpdateSchema>;

/** A secret key text of the agent API: 16–128 URL-safe characters. */
const agentKeySchema = z
  .string({ error: Messages.required })
  .trim()
  .min(16, { error: Messages.required })
  .max(128)
  .regex(/^[A-Za-z0-9_-]+$/, { error: 'Not a valid key.' });

/** Text an agent reports (name, version, OS, user): at most 200 characters, no control characters. */
const reported = requiredText;

/** Body of `POST /agent/enrol` (docs/decisions.md "Environment"): the customer's install key and what the device is. */
export const agentEnrolSchema = z.object({
  install_key: agentKeySchema,
  name: reported,
  os_type: reported.optional(),
  version: reported.optional(),
  dns_name: reported.optional(),
});
export type AgentEnrol = z.infer<typeof agentEnrolSchema>;

/** Answer of `POST /agent/enrol`: the new device and its secret key. */
export const agentEnrolResponseSchema = z.object({
  device_id: z.number().int(),
  device_key: z.string(),
  customer_id: z.number().int(),
});

/** Body of `POST /agent/heartbeat`: the device key and what changed; `user` is the logged-in OS user. */
export const agentHeartbeatSchema = z.object({
  device_key: agentKeySchema,
  name: reported.optional(),
  os_type: reported.optional(),
  version: reported.optional(),
  dns_name: reported.optional(),
  user: reported.optional(),
});
export type AgentHeartbeat = z.infer<typeof agentHeartbeatSchema>;

/** One exception rule as the agent applies it. */
export const agentRuleSchema = z.object({
  id: z.number().int(),
  domain: z.string(),
  ip: z.string(),
  resolver: z.string(),
  rule_type: z.enum(RULE_TYPES),
});

/**
 * Answer of `POST /agent/heartbeat`: the device's configuration — the policy it gets without a user,
 * its device exception and rules (applied on the device, before filtering: spec-notes §4 "Device
 * exceptions take precedence over JSON filters"), the advanced JSON configuration, and how often to
 * call again (seconds).
 */
export const agentHeartbeatResponseSchema = z.object({
  device_id: z.number().int(),
  customer_id: z.number().int(),
  heartbeat_s: z.number().int(),
  config: z.object({
    policy_id: z.number().int().nullable(),
    device_exception: z.object({ id: z.number().int(), name: z.string() }).nullable(),
    rules: z.array(agentRuleSchema),
    advanced: z.unknown().nullable(),
  }),
});
export type AgentHeartbeatResponse = z.infer<typeof agentHeartbeatResponseSchema>;

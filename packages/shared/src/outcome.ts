/**
 * The one vocabulary for why a query got its answer (docs/contributing.md "Conventions" 4; docs/architecture.md "Decision order"; docs/architecture.md "Statistics"). The query
 * log, stats, reports and the console all use these values.
 */
export const QUERY_ACTIONS = ['allowed', 'blocked', 'bypassed'] as const;
export type QueryAction = (typeof QUERY_ACTIONS)[number];

/**
 * The rule that decided, in docs/architecture.md "Decision order"'s decision order.
 * - `bypass`: an active cloud-key bypass
 * - `static_route`: conditional forwarding
 * - `policy_allow` / `policy_block`: the policy's own lists
 * - `msp_allow` / `msp_block` / `global_allow` / `global_block`: global lists
 * - `category`: a blocked category of the name
 * - `unclassified`: the policy's "allow unclassified" switch blocked a name with no category
 * - `default`: nothing matched; allowed
 */
export const QUERY_REASONS = [
  'bypass',
  'static_route',
  'policy_allow',
  'policy_block',
  'msp_allow',
  'msp_block',
  'global_allow',
  'global_block',
  'category',
  'unclassified',
  'default',
] as const;
export type QueryReason = (typeof QUERY_REASONS)[number];

/** How the answer was produced, for the log's `answer_source` column. */
export type AnswerSource = 'upstream' | 'cache' | 'stale' | 'synthesized' | 'refused' | 'error';

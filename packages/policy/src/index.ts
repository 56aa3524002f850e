/**
 * @cordon/policy — the one policy engine (docs/architecture.md "Decision order"): the ordered
 * rules and {@link evaluate}, the compiled policy, the domain and category indexes, the approved
 * recategorisations over them, safe search, the row-to-index steps the loaders share, and one
 * customer's view for the test-categorisation tool. The resolver builds its snapshot for every
 * tenant with these pieces; the API decides the tool's question with the same ones, so both read
 * a name the same way.
 */
export { CategoryIndex, CategoryIndexBuilder, type CategoryLookup } from './category-index.ts';
export { type CompiledPolicy, compilePolicy, withLists } from './compiled-policy.ts';
export { DomainIndex, type DomainLists, NO_LISTS } from './domain-index.ts';
export {
  type ActiveBypass,
  DECISIONS,
  type Decision,
  type DeviceRoutes,
  type EngineQuestion,
  type EngineSnapshot,
  evaluate,
  type Identity,
  type KnownIdentity,
  RULES,
  type Rule,
  staticRouteDecision,
} from './engine/index.ts';
export {
  addListEntry,
  compilePolicyRow,
  emptyLists,
  type ListEntryRow,
  type MutableLists,
  type PolicyRow,
  type StaticRouteRow,
  staticRouteIndexes,
} from './entries.ts';
export { type CategoryOverrides, withOverrides } from './overrides.ts';
export { SAFE_SEARCH_ENGINES, type SafeSearchEngine, safeSearchTarget } from './safe-search.ts';
export { decideForTool, type ToolAnswer, type ToolQuestion } from './tool.ts';
export { type CustomerView, type CustomerViewQuestion, loadCustomerView, suffixes } from './view.ts';

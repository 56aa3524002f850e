import { type CategoryLevel, categoryById, type PolicyCategoryWire } from '@cordon/shared';

/**
 * A policy's category setting as the screen holds it: `allowed: true` means the category is
 * ALLOWED (its switch is on). The opposite of the wire's flag (`@cordon/shared`'s
 * `PolicyCategory`, where `allowed: true` means blocked); only this file converts between them.
 */
export interface CategoryAllowance {
  id: number;
  name: string;
  level: CategoryLevel | null;
  allowed: boolean;
}

/**
 * The one place where the category `allowed` flag is flipped (spec-notes §3 "Category", §4; docs/api.md:
 * the server and the screen hold opposite values; flipped when read and when written). On the
 * wire, `allowed: true` means BLOCKED.
 */
export function categoryFromWire(wire: PolicyCategoryWire): CategoryAllowance {
  const known = categoryById(wire.id);
  return {
    id: wire.id,
    name: wire.name ?? known?.name ?? String(wire.id),
    // null on the wire is a level ('none'); only a missing level falls back to the built-in taxonomy.
    level: wire.level !== undefined ? wire.level : (known?.level ?? null),
    allowed: !wire.allowed,
  };
}

/** The wire form of a screen-side setting (flipped back: see `categoryFromWire`). */
export function categoryToWire(category: Pick<CategoryAllowance, 'id' | 'allowed'>): PolicyCategoryWire {
  return { id: category.id, allowed: !category.allowed };
}

/** A tree of translated strings: `{ policies: { new: 'New policy' } }` is the key `policies.new`. */
export interface MessageTree {
  readonly [key: string]: string | MessageTree;
}

/**
 * Merges the message trees of the console's parts (the shared strings of `i18n/` and each
 * feature's `i18n/<lang>.json`) into one. A part adds keys, never redefines one.
 * @throws Error naming the key when two trees define the same string, or a string and a subtree
 */
export function mergeMessages(trees: readonly MessageTree[]): MessageTree {
  const out: Record<string, string | MessageTree> = {};
  for (const tree of trees) mergeInto(out, tree, '');
  return out;
}

function mergeInto(target: Record<string, string | MessageTree>, tree: MessageTree, prefix: string): void {
  for (const [key, value] of Object.entries(tree)) {
    const path = `${prefix}${key}`;
    const existing = target[key];
    if (existing === undefined) {
      target[key] = typeof value === 'string' ? value : mergeMessages([value]);
    } else if (typeof existing === 'string' || typeof value === 'string') {
      throw new Error(`The message key ${path} is defined twice`);
    } else {
      mergeInto(existing as Record<string, string | MessageTree>, value, `${path}.`);
    }
  }
}

/** Every key of a tree, dotted (`policies.new`), in tree order. */
export function messageKeys(tree: MessageTree, prefix = ''): string[] {
  return Object.entries(tree).flatMap(([key, value]) =>
    typeof value === 'string' ? [`${prefix}${key}`] : messageKeys(value, `${prefix}${key}.`),
  );
}

/**
 * True when `key` names a string of the tree (`policies.new`), or its plural forms as i18next
 * resolves them with a `count` (`safeDelete.more` → `more_one` and `more_other`), or, with
 * `subtree`, a subtree (`locations.types`).
 */
export function hasMessage(tree: MessageTree, key: string, subtree = false): boolean {
  const parts = key.split('.');
  const last = parts.pop() as string;
  let node: string | MessageTree | undefined = tree;
  for (const part of parts) {
    if (node === undefined || typeof node === 'string') return false;
    node = node[part];
  }
  if (node === undefined || typeof node === 'string') return false;
  const leaf = node[last];
  if (subtree) return typeof leaf === 'object';
  return (
    typeof leaf === 'string' || (typeof node[`${last}_one`] === 'string' && typeof node[`${last}_other`] === 'string')
  );
}

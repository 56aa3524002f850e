import type { CompiledQuery } from 'kysely';

/** A named placeholder a statement is built with once; {@link CompiledTemplates} binds each request's value to it. */
class Slot {
  constructor(readonly name: string) {}
}

/**
 * A placeholder for the value named `name`, typed as the value it stands for so it goes where the
 * value would (`.where(col, '=', slot('mspId'))`, `` sql`${slot('from')}` ``, `.limit(slot('limit'))`).
 * Kysely passes it through as a parameter untouched; a builder that transforms its value (a LIKE
 * pattern, JSON) must be given the transformed value's slot instead.
 */
export function slot<T>(name: string): T {
  return new Slot(name) as unknown as T;
}

/**
 * Statements compiled once per shape and bound per request: Kysely's build and compile of a large
 * statement cost ≈ 0.35 ms of CPU each time (the MSP overview's customers, bench/README.md "API
 * reads"), its text is the same for every request of a shape, only its parameters change. At most
 * `max` shapes are kept (least recently used dropped).
 */
export class CompiledTemplates<V extends Record<string, unknown>> {
  readonly #entries = new Map<string, CompiledQuery<unknown>>();

  constructor(readonly max = 64) {}

  /**
   * `build()`'s statement for the shape named `key`, with the values of `values` in place of its
   * {@link slot}s. `build` is called once per key: its statement's text and every value that is
   * not a slot must depend on `key` alone.
   * @throws Error when a slot named in `values` is not a parameter of the compiled statement (a
   *   builder inlined or transformed it: its value would be ignored)
   */
  bind<O>(key: string, values: V, build: () => { compile(): CompiledQuery<O> }): CompiledQuery<O> {
    let compiled = this.#entries.get(key) as CompiledQuery<O> | undefined;
    if (compiled === undefined) {
      compiled = build().compile();
      const named = new Set(compiled.parameters.flatMap((p) => (p instanceof Slot ? [p.name] : [])));
      const lost = Object.keys(values).filter((name) => !named.has(name));
      if (lost.length > 0)
        throw new Error(`compiled template ${key}: slots not bound as parameters: ${lost.join(', ')}`);
      if (this.#entries.size >= this.max) this.#entries.delete(this.#entries.keys().next().value as string);
    } else {
      this.#entries.delete(key);
    }
    this.#entries.set(key, compiled);
    return {
      ...compiled,
      parameters: compiled.parameters.map((p) => {
        if (!(p instanceof Slot)) return p;
        if (!(p.name in values)) throw new Error(`compiled template ${key}: no value for slot ${p.name}`);
        return values[p.name];
      }),
    };
  }

  /** How many shapes are kept. */
  get size(): number {
    return this.#entries.size;
  }
}

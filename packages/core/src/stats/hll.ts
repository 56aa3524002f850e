/**
 * A HyperLogLog distinct-count sketch (Flajolet, Fusy, Gandouet, Meunier, "HyperLogLog: the analysis
 * of a near-optimal cardinality estimation algorithm", AofA 2007), used for the unique-domain count
 * of MSP and system dashboards over many days (docs/architecture.md "Statistics"; docs/decisions.md
 * "MSP dashboards over many customers").
 *
 * - {@link HLL_PRECISION} = 13: 8,192 one-byte registers (8 KB a sketch). Relative standard error
 *   1.04 / √8192 ≈ 1.15 % (so ≈ 2.3 % at two standard errors); below 2.5 × 8,192 ≈ 20,000 distinct
 *   keys the estimate is linear counting over the empty registers, whose error is far smaller (a few
 *   keys in a hundred are exact after rounding unless two share a register).
 * - Hash: two 32-bit FNV-1a passes (different offset bases) each finished with MurmurHash3's fmix32;
 *   13 bits pick the register and the remaining 51 bits give the rank, so no large-range correction
 *   is needed below ≈ 2^50 keys.
 * - Sketches merge by the register-wise maximum: the sketch of a union is the merge of the parts'
 *   sketches, whatever the overlap (the days and MSPs of a range).
 */

/** Register-index bits. */
export const HLL_PRECISION = 13;
/** Registers (bytes) of a sketch: 2^{@link HLL_PRECISION}. */
export const HLL_REGISTERS = 1 << HLL_PRECISION;

function fmix32(h: number): number {
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  h ^= h >>> 16;
  return h >>> 0;
}

function fnv1a(s: string, basis: number): number {
  let h = basis;
  for (let i = 0; i < s.length; i++) {
    h ^= s.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  return h >>> 0;
}

/** An empty sketch: {@link HLL_REGISTERS} zero registers. */
export function hllCreate(): Uint8Array {
  return new Uint8Array(HLL_REGISTERS);
}

/** Adds `key` (a UTF-16 string, hashed by its code units) to `sketch` in place. */
export function hllAdd(sketch: Uint8Array, key: string): void {
  const a = fmix32(fnv1a(key, 0x811c9dc5));
  const b = fmix32(fnv1a(key, 0x050c5d1f));
  const index = a >>> (32 - HLL_PRECISION);
  // The rank: 1 + the leading zeros of the 51 remaining bits (a's low 19 bits, then b).
  const low = (a << HLL_PRECISION) >>> 0;
  let rank: number;
  if (low !== 0) rank = Math.clz32(low) + 1;
  else rank = 32 - HLL_PRECISION + (b !== 0 ? Math.clz32(b) : 32) + 1;
  if (rank > sketch[index]!) sketch[index] = rank;
}

/**
 * Merges `other` into `into` (register-wise maximum), in place.
 * @throws Error when `other` is not a sketch of {@link HLL_REGISTERS} registers (a corrupt row)
 */
export function hllMerge(into: Uint8Array, other: Uint8Array): void {
  if (other.length !== HLL_REGISTERS) throw new Error(`HyperLogLog sketch of ${other.length} bytes`);
  for (let i = 0; i < HLL_REGISTERS; i++) if (other[i]! > into[i]!) into[i] = other[i]!;
}

/**
 * The estimated number of distinct keys added to `sketch` (rounded): the harmonic-mean estimate
 * with α_m = 0.7213 / (1 + 1.079 / m), or linear counting m·ln(m / V) while the raw estimate is at
 * most 2.5·m and V > 0 registers are empty (the paper's small-range correction).
 */
export function hllCount(sketch: Uint8Array): number {
  const m = HLL_REGISTERS;
  let sum = 0;
  let zeros = 0;
  for (let i = 0; i < m; i++) {
    const r = sketch[i]!;
    sum += 2 ** -r;
    if (r === 0) zeros++;
  }
  const alpha = 0.7213 / (1 + 1.079 / m);
  const raw = (alpha * m * m) / sum;
  if (raw <= 2.5 * m && zeros > 0) return Math.round(m * Math.log(m / zeros));
  return Math.round(raw);
}

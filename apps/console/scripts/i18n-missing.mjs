// Compares every `en.json` of the console (the shared strings of src/i18n/ and each feature's
// src/features/<name>/i18n/) with the French `fr.json` beside it, and prints per file the dotted
// keys English has and French lacks ("missing"), the keys French has and English no longer does
// ("extra"), and the strings whose `{{placeholders}}` differ between the two (i18next
// interpolation: a translation must name exactly the values English names).
//
// Usage: node apps/console/scripts/i18n-missing.mjs [--lang fr]
// Exit status: 0 when every French file exists, parses and lacks no key; 1 when a key or file is
// missing, a file does not parse, a key is a string in one language and a subtree in the other, or a
// placeholder differs. Extra keys are reported but do not fail (they are harmless leftovers of an
// English key renamed or removed).
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';

const consoleRoot = fileURLToPath(new URL('../', import.meta.url));
const src = join(consoleRoot, 'src');
const langFlag = process.argv.indexOf('--lang');
const lang = langFlag > 0 && process.argv[langFlag + 1] ? process.argv[langFlag + 1] : 'fr';

/** The directories holding an en.json: src/i18n and every src/features/<name>/i18n, sorted. */
function messageDirs() {
  const dirs = [join(src, 'i18n')];
  const features = join(src, 'features');
  for (const name of readdirSync(features).sort()) dirs.push(join(features, name, 'i18n'));
  return dirs.filter((dir) => existsSync(join(dir, 'en.json')));
}

/** Reads a JSON file; returns `{ tree }` or `{ error }` with the parser's message. */
function readTree(file) {
  try {
    return { tree: JSON.parse(readFileSync(file, 'utf8')) };
  } catch (err) {
    return { error: err instanceof Error ? err.message : String(err) };
  }
}

/** Every leaf of a message tree as a Map from dotted key to value (string, or a non-object leaf). */
function leaves(tree, prefix = '', out = new Map()) {
  for (const [key, value] of Object.entries(tree)) {
    if (value !== null && typeof value === 'object' && !Array.isArray(value)) leaves(value, `${prefix}${key}.`, out);
    else out.set(`${prefix}${key}`, value);
  }
  return out;
}

/** The sorted, de-duplicated `{{name}}` placeholders of a string (formats such as `{{n, number}}` keep the name). */
function placeholders(text) {
  if (typeof text !== 'string') return '';
  const names = [...text.matchAll(/\{\{\s*([^},\s]+)[^}]*\}\}/g)].map((m) => m[1]);
  return [...new Set(names)].sort().join(',');
}

let failed = false;
let files = 0;
let keys = 0;
for (const dir of messageDirs()) {
  files++;
  const enFile = join(dir, 'en.json');
  const frFile = join(dir, `${lang}.json`);
  const name = relative(consoleRoot, frFile);
  const en = readTree(enFile);
  if (en.error) {
    console.log(`${relative(consoleRoot, enFile)}: does not parse: ${en.error}`);
    failed = true;
    continue;
  }
  const enLeaves = leaves(en.tree);
  keys += enLeaves.size;
  if (!existsSync(frFile)) {
    console.log(`${name}: file missing (${enLeaves.size} keys to translate)`);
    failed = true;
    continue;
  }
  const fr = readTree(frFile);
  if (fr.error) {
    console.log(`${name}: does not parse: ${fr.error}`);
    failed = true;
    continue;
  }
  const frLeaves = leaves(fr.tree);
  const missing = [...enLeaves.keys()].filter((k) => !frLeaves.has(k));
  const extra = [...frLeaves.keys()].filter((k) => !enLeaves.has(k));
  const wrongType = [...enLeaves.keys()].filter((k) => frLeaves.has(k) && typeof frLeaves.get(k) !== 'string');
  const wrongPlaceholders = [...enLeaves.keys()].filter(
    (k) => frLeaves.has(k) && placeholders(enLeaves.get(k)) !== placeholders(frLeaves.get(k)),
  );
  if (missing.length + extra.length + wrongType.length + wrongPlaceholders.length === 0) {
    console.log(`${name}: ok (${enLeaves.size} keys)`);
    continue;
  }
  console.log(`${name}: ${missing.length} missing, ${extra.length} extra (${enLeaves.size} keys in en.json)`);
  for (const k of missing) console.log(`  missing  ${k}`);
  for (const k of extra) console.log(`  extra    ${k}`);
  for (const k of wrongType) console.log(`  not text ${k}`);
  for (const k of wrongPlaceholders) {
    console.log(
      `  placeholders ${k}: en {{${placeholders(enLeaves.get(k))}}} ${lang} {{${placeholders(frLeaves.get(k))}}}`,
    );
  }
  if (missing.length + wrongType.length + wrongPlaceholders.length > 0) failed = true;
}
console.log(`${files} files, ${keys} English keys: ${failed ? 'translation incomplete' : 'translation complete'}`);
process.exit(failed ? 1 : 0);

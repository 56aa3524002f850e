/**
 * `npm run bench`: prints the table of benchmark commands from bench/README.md ("Commands"), the one
 * list of them. Benchmarks are long and load the machine, so none runs from here: pick one and run it.
 */
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const readme = readFileSync(join(dirname(fileURLToPath(import.meta.url)), 'README.md'), 'utf8');
const start = readme.indexOf('\n## Commands\n');
if (start < 0) throw new Error('bench/README.md has no "## Commands" section');
const end = readme.indexOf('\n## ', start + 1);
console.log(readme.slice(start + 1, end < 0 ? undefined : end).trim());

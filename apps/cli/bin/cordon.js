#!/usr/bin/env node
// The `cordon` command. Sources are TypeScript; tsx compiles them on load (no build step to forget).
import { register } from 'tsx/esm/api';

register();
const { main } = await import('../src/main.ts');
await main(process.argv);

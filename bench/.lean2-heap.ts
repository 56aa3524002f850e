// temporary measurement script of helper lean2 (deleted after use)
import { openDatabase } from '@cordon/db';
import pino from 'pino';
import { devicesPart } from '../apps/resolver/src/snapshot/devices.ts';
import { groupsPart } from '../apps/resolver/src/snapshot/groups.ts';
import { Identities } from '../apps/resolver/src/snapshot/identities.ts';
import { listsPart } from '../apps/resolver/src/snapshot/lists.ts';
import { locationsPart } from '../apps/resolver/src/snapshot/locations.ts';
import { policiesPart } from '../apps/resolver/src/snapshot/policies.ts';

const gc = (globalThis as { gc?: () => void }).gc!;
const mem = () => {
  gc();
  gc();
  const m = process.memoryUsage();
  return m.heapUsed + m.arrayBuffers;
};
const handle = openDatabase({ sqlitePath: '/tmp/cordon-resolver-memory/cordon.sqlite' });
const log = pino({ level: 'silent' });
const which = process.argv[2];
const locations = await locationsPart.load(handle, log, null);
const policies = await policiesPart.load(handle, log, null);
const lists = await listsPart.load(handle, log, null);
const groups = await groupsPart.load(handle, log, null);
const part = which === 'old' ? (await import('/tmp/lean2/old-devices.ts')).devicesPart : devicesPart;
const m0 = mem();
const devices = await part.load(handle, log, null);
const m1 = mem();
const I = which === 'old' ? (await import('/tmp/lean2/old-identities.ts')).Identities : Identities;
const ids = I.build({ locations, policies, lists, devices, groups } as never);
const m2 = mem();
if (which !== 'old') {
  for (const d of devices.byKey.values()) ids.identify({ clientIp: '10.9.9.9', pathKey: null, deviceKey: d.key, user: null });
  const m3 = mem();
  console.log(`after every device asked once: identities ${((m3 - m1) / 1e6).toFixed(1)} MB`);
}
const t = performance.now();
const again = await part.load(handle, log, devices);
const sameMs = performance.now() - t;
console.log(`${which ?? 'new'}: ${devices.byKey.size} devices, part ${((m1 - m0) / 1e6).toFixed(1)} MB, identities ${((m2 - m1) / 1e6).toFixed(1)} MB, ids ${ids.devices}, unchanged reload ${sameMs.toFixed(0)} ms same=${again === devices}`);
await handle.close?.();
process.exit(0);

/** MSPs (spec-notes §7 "MSPs"): list, read, create with the primary admin, update, delete. */
export { createMsp, deleteMsp, getMsp, listMsps, mspDependants, updateMsp } from './service.ts';

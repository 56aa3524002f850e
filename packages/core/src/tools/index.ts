/** Tools (spec-notes §7 "UI and tools"): whose policy a test-categorisation question is decided under. */
export { type ToolTarget, toolTarget } from './service.ts';

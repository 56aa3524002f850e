/**
 * The console's font stacks: system fonts only (no download: the console works on an MSP's network
 * without a font host). The theme (app/theme.ts) and the charts, which measure their labels with it,
 * share them from here.
 */
export const SANS =
  'system-ui, -apple-system, "Segoe UI", Roboto, "Helvetica Neue", "Noto Sans", "Liberation Sans", Arial, sans-serif';
export const MONO = 'ui-monospace, SFMono-Regular, "SF Mono", Menlo, Consolas, "Liberation Mono", monospace';

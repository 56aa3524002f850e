/** The policy editor's preview (issue 29; docs/categories.md "Preview"): what category choices would have blocked, from the roll-ups. */

export { categoriesOfNames, type PreviewRange, previewPolicy, previewRange } from './service.ts';

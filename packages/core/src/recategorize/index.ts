/** Recategorisation requests and the category overrides they become (spec-notes §7 `POST /tools/recategorize`). */
export {
  listRecategorizations,
  OVERRIDE_SOURCE,
  requestRecategorization,
  reviewRecategorization,
} from './service.ts';

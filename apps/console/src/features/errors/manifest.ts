import { defineFeature } from '../../platform/manifest.ts';
import en from './i18n/en.json';

const notFound = () => import('./NotFoundPage.tsx').then((m) => m.NotFoundPage);

/** `/403`, `/404` and every unknown path (spec-notes §2, §6; docs/architecture.md "Console"), in the blank layout. */
export const errorsFeature = defineFeature({
  name: 'errors',
  routes: [
    {
      path: '/403',
      area: 'blank',
      titleKey: 'pages.forbidden',
      page: () => import('./ForbiddenPage.tsx').then((m) => m.ForbiddenPage),
    },
    { path: '/404', area: 'blank', titleKey: 'pages.notFound', page: notFound },
    { path: '*', area: 'blank', titleKey: 'pages.notFound', page: notFound },
  ],
  messages: { en },
  translations: { fr: () => import('./i18n/fr.json') },
});

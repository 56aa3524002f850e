import '@mantine/core/styles.css';
import '@mantine/notifications/styles.css';
import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import { createApiClient } from './api/client.ts';
import { App } from './app/App.tsx';
import { createResponseHandler } from './app/errors/responseHandler.ts';
import { ENGLISH, loadFeatureTranslation } from './app/messages.ts';
import { createAppRouter } from './app/router.tsx';
import { createI18n, pickLanguage } from './i18n/index.ts';
import { createSessionStore, StorageKeys } from './session/session.ts';

// The composition root: every app-wide dependency is created here and passed down explicitly.
const session = createSessionStore(window.localStorage);
const router = createAppRouter();
const api = createApiClient({
  getToken: () => session.getState().token,
  onOutcome: createResponseHandler({
    currentPath: () => router.state.location.pathname,
    navigate: (to) => void router.navigate(to),
    session,
  }),
});
const i18n = createI18n(ENGLISH, loadFeatureTranslation);

const rootElement = document.getElementById('root');
if (!rootElement) throw new Error('#root is missing from index.html');
const root = rootElement;

/** Renders the console once its language's strings are in (English at once). */
function render(): void {
  document.documentElement.lang = i18n.language;
  createRoot(root).render(
    <StrictMode>
      <App api={api} session={session} router={router} i18n={i18n} />
    </StrictMode>,
  );
}

// A stored French choice fetches the French strings before the first render (the page stays blank
// for that one request rather than showing English, then French); English renders at once.
const lang = pickLanguage(window.localStorage.getItem(StorageKeys.lang), navigator.languages);
if (lang === 'en') render();
else void i18n.changeLanguage(lang).then(render, render);

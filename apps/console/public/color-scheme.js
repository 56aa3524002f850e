// The colour scheme before the first paint (issue 29: no light flash for dark-mode users). A classic
// script in <head>, after the theme-color metas and before the stylesheet: the CSP allows no inline
// script, so Mantine's ColorSchemeScript cannot be used. Same rule as Mantine's: the choice stored by
// the header's picker (localStorageColorSchemeManager, key `cordon-color-scheme`: light, dark or
// auto), else auto; auto follows the system. The address bar's theme-color follows the scheme, also
// when the picker changes it later (Mantine sets the attribute on <html>).
(() => {
  // Light: brand 7 (app/theme.ts); dark: Mantine's dark body (dark 7).
  const THEME_COLORS = { light: '#136695', dark: '#242424' };
  const root = document.documentElement;
  let scheme = window.matchMedia?.('(prefers-color-scheme: dark)').matches ? 'dark' : 'light';
  try {
    const stored = window.localStorage.getItem('cordon-color-scheme');
    if (stored === 'light' || stored === 'dark') scheme = stored;
  } catch {
    // Storage blocked (privacy settings): the system's scheme, as Mantine does then.
  }
  root.setAttribute('data-mantine-color-scheme', scheme);

  const syncThemeColor = () => {
    const current = root.getAttribute('data-mantine-color-scheme') === 'dark' ? 'dark' : 'light';
    // A stored choice wins over the system's: every meta (each for one media) takes its colour.
    for (const meta of document.querySelectorAll('meta[name="theme-color"]')) {
      meta.setAttribute('content', THEME_COLORS[current]);
    }
  };
  syncThemeColor();
  new MutationObserver(syncThemeColor).observe(root, {
    attributes: true,
    attributeFilter: ['data-mantine-color-scheme'],
  });
})();

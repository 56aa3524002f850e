import { useEffect } from 'react';
import { useTranslation } from 'react-i18next';
import { usePageName } from '../components/PageHeader.tsx';
import { useSession } from '../session/context.ts';

/** Keeps `document.title` as '{ui title} | {page}' (spec-notes §2), with the product title as default. */
export function DocumentTitle() {
  const { t } = useTranslation();
  const { ui } = useSession();
  const page = usePageName();
  const product = ui.title || t('app.defaultTitle');
  useEffect(() => {
    document.title = page ? `${product} | ${page}` : product;
  }, [product, page]);
  return null;
}

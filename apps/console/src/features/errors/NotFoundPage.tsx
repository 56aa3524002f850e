import { useTranslation } from 'react-i18next';
import { ErrorPage } from './ErrorPage.tsx';

/** `/404` and every unknown path (spec-notes §2; docs/architecture.md "Console"). */
export function NotFoundPage() {
  const { t } = useTranslation();
  return <ErrorPage code="404" title={t('pages.notFound')} text={t('errors.notFoundText')} />;
}

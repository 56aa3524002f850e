import { useTranslation } from 'react-i18next';
import { ErrorPage } from './ErrorPage.tsx';

/** `/403` (spec-notes §2, §6): where a role the route does not allow is sent. */
export function ForbiddenPage() {
  const { t } = useTranslation();
  return <ErrorPage code="403" title={t('pages.forbidden')} text={t('errors.forbiddenText')} />;
}

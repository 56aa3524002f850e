import { Alert, Button, Text } from '@mantine/core';
import { useTranslation } from 'react-i18next';
import { ApiCallError } from '../../api/client.ts';

/**
 * True for the API's answer to a search that ran out of its time bound (503 `ERR_QUERY_TIMEOUT`;
 * docs/api.md "History"): the server stopped it so that the other users' requests are not held.
 */
export function isQueryTimeout(error: unknown): boolean {
  return error instanceof ApiCallError && error.code === 'ERR_QUERY_TIMEOUT';
}

/**
 * What the history shows instead of its table when the search ran out of time: what happened and how
 * to narrow it, in the admin's language, and a button to try again.
 */
export function HistoryTimeout({ onRetry }: { onRetry: () => void }) {
  const { t } = useTranslation();
  return (
    <Alert color="orange" title={t('history.timeoutTitle')} data-testid="history-timeout">
      <Text size="sm" mb="xs">
        {t('history.timeoutText')}
      </Text>
      <Button size="xs" variant="light" onClick={onRetry}>
        {t('common.retry')}
      </Button>
    </Alert>
  );
}

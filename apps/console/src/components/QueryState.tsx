import { Alert, Button, Center, Loader, Text } from '@mantine/core';
import type { UseQueryResult } from '@tanstack/react-query';
import type { ReactNode } from 'react';
import { useTranslation } from 'react-i18next';

/**
 * Renders a query's loading and error states, and `children(data)` once it has data. The global
 * handler has already toasted an HTTP error; this only keeps the page honest about what is missing.
 */
export function QueryState<T>({ query, children }: { query: UseQueryResult<T>; children: (data: T) => ReactNode }) {
  const { t } = useTranslation();
  if (query.isPending) {
    return (
      <Center py="xl">
        <Loader role="status" aria-label={t('app.loading')} />
      </Center>
    );
  }
  if (query.isError) {
    return (
      <Alert color="red" title={t('common.loadFailed')}>
        <Text size="sm" mb="xs">
          {query.error.message}
        </Text>
        <Button size="xs" variant="light" onClick={() => void query.refetch()}>
          {t('common.retry')}
        </Button>
      </Alert>
    );
  }
  return <>{children(query.data)}</>;
}

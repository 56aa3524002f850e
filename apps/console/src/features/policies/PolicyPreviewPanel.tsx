import { type PolicyPreviewBody, policyPreviewEndpoints } from '@cordon/shared';
import { Alert, Group, List, Loader, Paper, Text, Title } from '@mantine/core';
import { useDebouncedValue } from '@mantine/hooks';
import { keepPreviousData, useQuery } from '@tanstack/react-query';
import { useTranslation } from 'react-i18next';
import { useApi } from '../../api/context.ts';
import { useFormat } from '../../components/format.ts';

/** How long the choices must rest before the preview is asked again (ms): a burst of clicks asks once. */
const PREVIEW_DEBOUNCE_MS = 400;

/**
 * The editor's preview (issue 29; docs/categories.md "Preview"): how many of the customer's last 7
 * days of queries the unsaved choices would have blocked, and the names most asked, from
 * `POST /policies/{id}/preview`. Asked again, debounced, as the choices change; the last answer stays
 * shown meanwhile.
 */
export function PolicyPreviewPanel({ policyId, body }: { policyId: number; body: PolicyPreviewBody }) {
  const { t } = useTranslation();
  const api = useApi();
  const fmt = useFormat();
  const [debounced] = useDebouncedValue(body, PREVIEW_DEBOUNCE_MS);
  const blocked = [...debounced.blocked].sort((a, b) => a - b);
  const preview = useQuery({
    queryKey: ['policypreview', policyId, blocked.join(','), debounced.allow_unclassified ?? true],
    queryFn: ({ signal }) =>
      api.call(policyPreviewEndpoints.preview, {
        params: { id: policyId },
        body: { blocked, allow_unclassified: debounced.allow_unclassified ?? true },
        signal,
      }),
    placeholderData: keepPreviousData,
    staleTime: 60_000,
  });
  const data = preview.data;
  return (
    <Paper withBorder p="md" radius="md" data-testid="policy-preview">
      <Group justify="space-between" mb="xs" wrap="nowrap">
        <Title order={2} size="h4">
          {t('policyEditor.previewTitle')}
        </Title>
        {preview.isFetching ? <Loader size="xs" role="status" aria-label={t('policyEditor.previewCounting')} /> : null}
      </Group>
      <div aria-live="polite">
        {preview.isError && !data ? (
          <Alert color="red" variant="light">
            {t('policyEditor.previewFailed')}
          </Alert>
        ) : !data ? (
          <Text size="sm" c="dimmed">
            {t('policyEditor.previewCounting')}
          </Text>
        ) : (
          <>
            <Text size="sm" data-testid="policy-preview-figure">
              {t('policyEditor.previewFigure', {
                blocked: fmt.number(data.blocked),
                total: fmt.number(data.total),
                percent: fmt.percent(data.total === 0 ? 0 : data.blocked / data.total),
              })}
            </Text>
            {data.top.length > 0 ? (
              <>
                <Text size="sm" fw={600} mt="sm">
                  {t('policyEditor.previewTop')}
                </Text>
                <List size="sm" spacing={2} data-testid="policy-preview-top">
                  {data.top.map((d) => (
                    <List.Item key={d.domain}>
                      <Text span size="sm" style={{ overflowWrap: 'anywhere' }}>
                        {d.domain}
                      </Text>{' '}
                      <Text span size="sm" c="dimmed">
                        ({t('policyEditor.previewQueries', { count: d.count, n: fmt.number(d.count) })})
                      </Text>
                    </List.Item>
                  ))}
                </List>
              </>
            ) : null}
          </>
        )}
      </div>
      <Text size="xs" c="dimmed" mt="sm">
        {t('policyEditor.previewNote')}
      </Text>
    </Paper>
  );
}

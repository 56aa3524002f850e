import { Constants, pageOffset } from '@cordon/shared';
import { Group, Pagination, Text } from '@mantine/core';
import { useTranslation } from 'react-i18next';

/**
 * Pagination under a list (spec-notes §9: page size 10) with the total; the page buttons hidden when
 * everything fits on one page. Every control is named for screen readers (WCAG 4.1.2).
 */
export function ListPagination(props: { total: number; page: number; onChange: (page: number) => void }) {
  const { t } = useTranslation();
  const pages = Math.ceil(props.total / Constants.defaultPageSize);
  if (props.total === 0) return null;
  return (
    <Group justify="space-between" mt="md">
      <Text size="sm" c="dimmed" data-testid="list-total">
        {t('common.total', { count: props.total })}
      </Text>
      {pages > 1 ? (
        <Pagination
          total={pages}
          value={props.page}
          onChange={props.onChange}
          size="sm"
          aria-label={t('common.pagination')}
          getControlProps={(control) => ({ 'aria-label': t(`common.pageControl.${control}`) })}
          getItemProps={(page) => ({
            'aria-label': t('common.pageN', { page }),
            'aria-current': page === props.page ? 'page' : undefined,
          })}
        />
      ) : null}
    </Group>
  );
}

/** The `limit`/`offset` of a 1-based page (spec-notes §9: offset = size × page − size). */
export function pageQuery(page: number): { limit: number; offset: number } {
  return { limit: Constants.defaultPageSize, offset: pageOffset(Constants.defaultPageSize, page) };
}

import type { Group as GroupT } from '@cordon/shared';
import { ActionIcon, Button, Group, Paper, Stack, Text } from '@mantine/core';
import { IconArrowDown, IconArrowUp, IconGripVertical } from '@tabler/icons-react';
import { type KeyboardEvent, useEffect, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { PageHeader } from '../../components/PageHeader.tsx';
import { QueryState } from '../../components/QueryState.tsx';
import { showErrorToast, showSuccessToast } from '../../components/toast.ts';
import { useCustomerId } from '../../session/context.ts';
import { useRankedGroupsQuery, useSaveRankingMutation } from './api.ts';
import { GroupTabs } from './GroupTabs.tsx';

/** `list` with the item at `from` moved to `to`. */
export function moveItem<T>(list: readonly T[], from: number, to: number): T[] {
  const next = [...list];
  const [item] = next.splice(from, 1);
  if (item === undefined || to < 0 || to > list.length - 1) return [...list];
  next.splice(to, 0, item);
  return next;
}

/**
 * The ranking list: drag a row (its grip) onto another to move it there; with the keyboard, focus a
 * row and press Alt+↑ / Alt+↓, or use its Move up / Move down buttons.
 */
function RankingList({ groups, onSaved }: { groups: readonly GroupT[]; onSaved: () => void }) {
  const { t } = useTranslation();
  const customerId = useCustomerId();
  const save = useSaveRankingMutation(customerId);
  const [order, setOrder] = useState<readonly GroupT[]>(groups);
  const [dragging, setDragging] = useState<number | null>(null);
  const [announce, setAnnounce] = useState('');
  useEffect(() => setOrder(groups), [groups]);
  const changed = order.some((g, i) => g.id !== groups[i]?.id);
  const move = (from: number, to: number) => {
    if (to < 0 || to >= order.length || from === to) return;
    const next = moveItem(order, from, to);
    setOrder(next);
    const moved = next[to];
    if (moved) setAnnounce(t('groups.movedTo', { name: moved.name, position: to + 1 }));
  };
  const onKey = (e: KeyboardEvent, i: number) => {
    if (!e.altKey) return;
    if (e.key === 'ArrowUp') {
      e.preventDefault();
      move(i, i - 1);
    } else if (e.key === 'ArrowDown') {
      e.preventDefault();
      move(i, i + 1);
    }
  };
  const onSave = async () => {
    const outcome = await save.run(order.map((g) => g.id));
    if (outcome.failed.length > 0) showErrorToast(outcome.failed[0]?.error ?? '');
    else showSuccessToast(t('groups.rankingSaved'));
    onSaved();
  };
  return (
    <Stack maw={640}>
      <Text size="sm" c="dimmed">
        {t('groups.rankingHelp')}
      </Text>
      <ol
        aria-label={t('groups.ranking')}
        style={{ listStyle: 'none', padding: 0, margin: 0 }}
        data-testid="ranking-list"
      >
        {order.map((g, i) => (
          <li
            key={g.id}
            draggable
            data-testid={`rank-${g.name}`}
            onDragStart={(e) => {
              setDragging(i);
              e.dataTransfer.effectAllowed = 'move';
              e.dataTransfer.setData('text/plain', String(g.id));
            }}
            onDragOver={(e) => e.preventDefault()}
            onDrop={(e) => {
              e.preventDefault();
              if (dragging !== null) move(dragging, i);
              setDragging(null);
            }}
            onDragEnd={() => setDragging(null)}
          >
            <Paper
              withBorder
              p="xs"
              mb={6}
              radius="md"
              tabIndex={0}
              aria-label={t('groups.rankItem', { position: i + 1, name: g.name })}
              onKeyDown={(e) => onKey(e, i)}
              style={{ opacity: dragging === i ? 0.5 : 1, cursor: 'grab' }}
            >
              <Group wrap="nowrap" gap="sm">
                <IconGripVertical size={18} aria-hidden />
                <Text fw={600} w={28} ta="right">
                  {i + 1}
                </Text>
                <Text style={{ flex: 1 }} truncate>
                  {g.name}
                  {g.disable ? (
                    <Text span c="dimmed" size="sm">
                      {' '}
                      ({t('groups.disabledNote')})
                    </Text>
                  ) : null}
                </Text>
                <ActionIcon
                  variant="subtle"
                  aria-label={t('groups.moveUp', { name: g.name })}
                  disabled={i === 0}
                  onClick={() => move(i, i - 1)}
                >
                  <IconArrowUp size={16} />
                </ActionIcon>
                <ActionIcon
                  variant="subtle"
                  aria-label={t('groups.moveDown', { name: g.name })}
                  disabled={i === order.length - 1}
                  onClick={() => move(i, i + 1)}
                >
                  <IconArrowDown size={16} />
                </ActionIcon>
              </Group>
            </Paper>
          </li>
        ))}
      </ol>
      <div aria-live="polite" style={{ position: 'absolute', width: 1, height: 1, overflow: 'hidden' }}>
        {announce}
      </div>
      <Group justify="flex-end">
        <Button variant="default" disabled={!changed || save.isPending} onClick={() => setOrder(groups)}>
          {t('common.cancel')}
        </Button>
        <Button disabled={!changed} loading={save.isPending} onClick={onSave}>
          {t('groups.saveRanking')}
        </Button>
      </Group>
    </Stack>
  );
}

/**
 * `/customer/environment/groups-ranking` (spec-notes §2 "Group Ranking"): the groups in rank order;
 * reorder by dragging (or the keyboard), then save: weights from the list order starting at 1
 * (spec-notes §4), one PUT per group through `/batch` (spec-notes §7).
 */
export function GroupRankingPage() {
  const { t } = useTranslation();
  const customerId = useCustomerId();
  const groups = useRankedGroupsQuery(customerId);
  return (
    <>
      <PageHeader />
      <GroupTabs active="ranking" />
      <QueryState query={groups}>
        {(page) =>
          page.data.length === 0 ? (
            <Text c="dimmed">{t('groups.noGroups')}</Text>
          ) : (
            <RankingList groups={page.data} onSaved={() => void groups.refetch()} />
          )
        }
      </QueryState>
    </>
  );
}

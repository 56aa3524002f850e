import { Tabs } from '@mantine/core';
import { useTranslation } from 'react-i18next';
import { useNavigate } from 'react-router';

const PATHS = { all: '/customer/environment/groups', ranking: '/customer/environment/groups-ranking' } as const;

/** The groups' secondary navigation (spec-notes §2): All Groups and Group Ranking. */
export function GroupTabs({ active }: { active: keyof typeof PATHS }) {
  const { t } = useTranslation();
  const navigate = useNavigate();
  return (
    <Tabs value={active} onChange={(v) => v && navigate(PATHS[v as keyof typeof PATHS])} mb="md">
      <Tabs.List>
        <Tabs.Tab value="all">{t('groups.allGroups')}</Tabs.Tab>
        <Tabs.Tab value="ranking">{t('groups.ranking')}</Tabs.Tab>
      </Tabs.List>
    </Tabs>
  );
}

import { Group, Text, Title } from '@mantine/core';
import { createContext, type ReactNode, useContext, useEffect, useMemo, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { useLocation, useMatches } from 'react-router';

/** What a route declares in its `handle`: the i18n key of its page name (spec-notes §2 titles). */
export interface RouteHandle {
  title?: string;
}

interface Subtitle {
  path: string;
  text: string;
}

const SubtitleContext = createContext<{ subtitle: Subtitle | null; set: (s: Subtitle | null) => void } | null>(null);

/** Holds the page subtitle; it belongs to the path that set it, so it is cleared on each navigation (spec-notes §2). */
export function SubtitleProvider({ children }: { children: ReactNode }) {
  const [subtitle, set] = useState<Subtitle | null>(null);
  const value = useMemo(() => ({ subtitle, set }), [subtitle]);
  return <SubtitleContext.Provider value={value}>{children}</SubtitleContext.Provider>;
}

/** Sets the current page's subtitle (e.g. the customer or policy name) while the page is shown. */
export function usePageSubtitle(text: string | undefined): void {
  const ctx = useContext(SubtitleContext);
  const { pathname } = useLocation();
  const set = ctx?.set;
  useEffect(() => {
    if (!set || !text) return;
    set({ path: pathname, text });
    return () => set(null);
  }, [set, text, pathname]);
}

/** The translated page name of the deepest matched route that declares one. */
export function usePageName(): string {
  const { t } = useTranslation();
  const matches = useMatches();
  const key = [...matches]
    .reverse()
    .map((m) => (m.handle as RouteHandle | undefined)?.title)
    .find(Boolean);
  return key ? t(key) : '';
}

/** The subtitle of the current path, or '' (a subtitle set on another path is already cleared). */
export function useCurrentSubtitle(): string {
  const ctx = useContext(SubtitleContext);
  const { pathname } = useLocation();
  return ctx?.subtitle && ctx.subtitle.path === pathname ? ctx.subtitle.text : '';
}

/** The heading of a page inside an area layout: its name and the current subtitle. */
export function PageHeader({ actions }: { actions?: ReactNode }) {
  const page = usePageName();
  const subtitle = useCurrentSubtitle();
  return (
    <Group justify="space-between" align="flex-end" mb="lg">
      <div>
        <Title order={1} size="h2">
          {page}
        </Title>
        {subtitle ? (
          <Text c="dimmed" data-testid="page-subtitle">
            {subtitle}
          </Text>
        ) : null}
      </div>
      {actions}
    </Group>
  );
}

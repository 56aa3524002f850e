import { NavLink } from '@mantine/core';
import { useTranslation } from 'react-i18next';
import { Link, useLocation } from 'react-router';
import { hasReadyPage, type NavItem } from '../navigation.ts';

/** True when the path is the item's page or below it. */
function isActive(item: NavItem, pathname: string): boolean {
  return pathname === item.path || pathname.startsWith(`${item.path}/`);
}

function MenuItem({ item, pathname }: { item: NavItem; pathname: string }) {
  const { t } = useTranslation();
  const label = t(item.labelKey);
  if (item.children) {
    const ready = hasReadyPage(item);
    return (
      <NavLink
        label={label}
        disabled={!ready}
        defaultOpened={ready}
        {...(ready ? {} : { description: t('app.notAvailable') })}
      >
        {ready ? item.children.map((c) => <MenuItem key={c.path} item={c} pathname={pathname} />) : null}
      </NavLink>
    );
  }
  if (!item.ready) {
    return <NavLink label={label} disabled aria-disabled="true" title={t('app.notAvailable')} />;
  }
  return <NavLink component={Link} to={item.path} label={label} active={isActive(item, pathname)} />;
}

/** An area's navigation menu (spec §2); pages not built yet are shown disabled. */
export function NavMenu({ items }: { items: readonly NavItem[] }) {
  const { t } = useTranslation();
  const { pathname } = useLocation();
  return (
    <nav aria-label={t('app.mainNavigation')}>
      {items.map((item) => (
        <MenuItem key={item.path} item={item} pathname={pathname} />
      ))}
    </nav>
  );
}

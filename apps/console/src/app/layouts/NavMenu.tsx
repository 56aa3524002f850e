import { NavLink } from '@mantine/core';
import { useTranslation } from 'react-i18next';
import { Link, useLocation } from 'react-router';
import { hasReadyPage, type NavItem } from '../navigation.ts';

/**
 * A page not built yet: greyed by the theme's "dimmed" colour at full opacity, not by Mantine's
 * disabled opacity (its text fell to 1.51:1, WCAG 1.4.3 asks 4.5:1).
 */
const NOT_READY_STYLE = { opacity: 1, cursor: 'not-allowed' } as const;

/** True when the path is the item's page or below it. */
function isActive(item: NavItem, pathname: string): boolean {
  return pathname === item.path || pathname.startsWith(`${item.path}/`);
}

function MenuItem({ item, pathname, onNavigate }: { item: NavItem; pathname: string; onNavigate?: () => void }) {
  const { t } = useTranslation();
  const label = t(item.labelKey);
  if (item.children) {
    const ready = hasReadyPage(item);
    return (
      <NavLink
        label={label}
        disabled={!ready}
        defaultOpened={ready}
        {...(ready ? {} : { description: t('app.notAvailable'), style: NOT_READY_STYLE, c: 'dimmed' })}
      >
        {ready
          ? item.children.map((c) => (
              <MenuItem key={c.path} item={c} pathname={pathname} {...(onNavigate ? { onNavigate } : {})} />
            ))
          : null}
      </NavLink>
    );
  }
  if (!item.ready) {
    return (
      <NavLink
        label={label}
        disabled
        aria-disabled="true"
        title={t('app.notAvailable')}
        style={NOT_READY_STYLE}
        c="dimmed"
      />
    );
  }
  return (
    <NavLink component={Link} to={item.path} label={label} active={isActive(item, pathname)} onClick={onNavigate} />
  );
}

/**
 * An area's navigation menu (spec-notes §2); pages not built yet are shown disabled. `onNavigate` runs on
 * a tap of a page (the phone layout closes the menu with it, even on the page already shown).
 */
export function NavMenu({ items, onNavigate }: { items: readonly NavItem[]; onNavigate?: () => void }) {
  const { t } = useTranslation();
  const { pathname } = useLocation();
  return (
    <nav aria-label={t('app.mainNavigation')}>
      {items.map((item) => (
        <MenuItem key={item.path} item={item} pathname={pathname} {...(onNavigate ? { onNavigate } : {})} />
      ))}
    </nav>
  );
}

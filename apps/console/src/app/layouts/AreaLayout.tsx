import { Role } from '@cordon/shared';
import { Anchor, AppShell, Box, Burger, Button, Divider, Group, Stack, Text } from '@mantine/core';
import { useDisclosure } from '@mantine/hooks';
import { IconShieldCheck } from '@tabler/icons-react';
import { lazy, Suspense, useEffect } from 'react';
import { useTranslation } from 'react-i18next';
import { Link, Navigate, Outlet, useLocation } from 'react-router';
import { useSession } from '../../session/context.ts';
import { type Area, guardDecision } from '../../session/routeGuard.ts';
import { customerScope, mspScope } from '../../session/scope.ts';
import { MENUS } from '../navigation.ts';
import { NavMenu } from './NavMenu.tsx';

// The header's widgets (branding, pickers, tenant switchers) come in one lazy chunk with the first
// area page: they read endpoints the login page never needs (bench/README.md "Console first load").
const widgets = () => import('../../components/HeaderWidgets.ts');
const TenantSwitcher = lazy(() => widgets().then((m) => ({ default: m.TenantSwitcher })));
const TenantZoneSync = lazy(() => widgets().then((m) => ({ default: m.TenantZoneSync })));
const CustomerName = lazy(() => widgets().then((m) => ({ default: m.CustomerName })));
const ColorSchemePicker = lazy(() => widgets().then((m) => ({ default: m.ColorSchemePicker })));
const LanguagePicker = lazy(() => widgets().then((m) => ({ default: m.LanguagePicker })));
const BrandingSync = lazy(() => widgets().then((m) => ({ default: m.BrandingSync })));

/** Where the two pickers will be while their chunk loads: their size, so the header does not move. */
function PickersPlaceholder() {
  return (
    <>
      <Box w={110} h={30} />
      <Box w={110} h={30} />
    </>
  );
}

/**
 * Links between the areas the signed-in role can reach with its current selections: in the header
 * from `sm` up, at the top of the (collapsible) menu on a phone (`inMenu`).
 */
function AreaSwitcher({ area, inMenu }: { area: Area; inMenu?: boolean }) {
  const { t } = useTranslation();
  const session = useSession();
  const role = session.claims?.vue_role;
  const links: { area: Area; to: string }[] = [];
  if (role === Role.System) links.push({ area: 'system', to: '/system/overview' });
  if ((role === Role.System && mspScope(session) !== null) || role === Role.Msp) {
    links.push({ area: 'msp', to: '/msp/overview' });
  }
  if (role !== Role.Sales && role !== Role.Customer && customerScope(session) !== null) {
    links.push({ area: 'customer', to: '/customer/overview' });
  }
  if (links.length < 2) return null;
  const Wrapper = inMenu ? Stack : Group;
  return (
    <Wrapper
      gap="xs"
      {...(inMenu ? { hiddenFrom: 'sm' } : { visibleFrom: 'sm' })}
      role="group"
      aria-label={t('app.switchArea')}
    >
      {links.map((l) => (
        <Button
          key={l.area}
          component={Link}
          to={l.to}
          size="compact-sm"
          variant={l.area === area ? 'filled' : 'subtle'}
        >
          {t(`app.areas.${l.area}`)}
        </Button>
      ))}
    </Wrapper>
  );
}

/**
 * The layout of an area (spec-notes §2 layouts default/system, sales, msp, customer, userprofile): the
 * route guard (spec-notes §6), a header with the product title and the user, and the area's menu.
 */
export function AreaLayout({ area }: { area: Area }) {
  const { t } = useTranslation();
  const session = useSession();
  const [opened, { toggle, close }] = useDisclosure();
  const { pathname } = useLocation();
  // On a phone the menu closes once a page is chosen.
  // biome-ignore lint/correctness/useExhaustiveDependencies: runs on each navigation
  useEffect(() => close(), [pathname, close]);
  const decision = guardDecision(area, session);
  if (decision.kind === 'redirect') return <Navigate to={decision.to} replace />;
  const title = session.ui.title || t('app.defaultTitle');
  // Only roles 1 and 3 switch tenants: the others never load the switcher's chunk.
  const role = session.claims?.vue_role;
  const switcher = area !== 'profile' && (role === Role.System || role === Role.Msp);
  // Dates follow the tenant's zone when the profile names none (issue 29); the system has no tenant.
  const tenant = role === Role.System || role === Role.Msp || role === Role.Customer;

  return (
    <AppShell
      header={{ height: 56 }}
      navbar={{ width: 250, breakpoint: 'sm', collapsed: { mobile: !opened } }}
      padding="lg"
      data-area={area}
    >
      <Suspense fallback={null}>
        <BrandingSync area={area} />
        {tenant ? <TenantZoneSync inCustomerArea={area === 'customer'} /> : null}
      </Suspense>
      <AppShell.Header>
        <Group h="100%" px="md" justify="space-between" wrap="nowrap">
          <Group gap="md" wrap="nowrap">
            <Burger
              opened={opened}
              onClick={toggle}
              hiddenFrom="sm"
              size="sm"
              aria-label={t('app.openNavigation')}
              aria-expanded={opened}
              aria-controls="area-navigation"
            />
            <Anchor component={Link} to="/" fw={700} size="lg" underline="never" aria-label={title}>
              {session.ui.logo ? (
                <img src={session.ui.logo} alt={title} height={28} style={{ display: 'block', maxWidth: 160 }} />
              ) : (
                <Group gap={6} wrap="nowrap">
                  <IconShieldCheck size={24} aria-hidden />
                  <Text span fw={700} size="lg" visibleFrom="xs">
                    {title}
                  </Text>
                </Group>
              )}
            </Anchor>
            <AreaSwitcher area={area} />
            {role === Role.Customer ? (
              <Suspense fallback={null}>
                <CustomerName />
              </Suspense>
            ) : null}
            {switcher ? (
              <Group visibleFrom="md" wrap="nowrap">
                <Suspense fallback={null}>
                  <TenantSwitcher />
                </Suspense>
              </Group>
            ) : null}
          </Group>
          <Group gap="md" wrap="nowrap">
            <Group visibleFrom="sm" gap="xs" wrap="nowrap">
              <Suspense fallback={<PickersPlaceholder />}>
                <ColorSchemePicker />
                <LanguagePicker />
              </Suspense>
            </Group>
            <Anchor component={Link} to="/profile" size="sm">
              <Text span size="sm" visibleFrom="sm">
                {session.claims?.name || session.claims?.email}
              </Text>
              <Text span size="sm" hiddenFrom="sm">
                {t('app.profile')}
              </Text>
            </Anchor>
            <Button component={Link} to="/logout" variant="default" size="compact-sm">
              {t('app.logout')}
            </Button>
          </Group>
        </Group>
      </AppShell.Header>
      <AppShell.Navbar p="xs" style={{ overflowY: 'auto' }} id="area-navigation">
        <Stack gap="xs" hiddenFrom="md" mb="xs">
          <AreaSwitcher area={area} inMenu />
          {switcher ? (
            <Suspense fallback={null}>
              <TenantSwitcher />
            </Suspense>
          ) : null}
          <Group hiddenFrom="sm">
            <Suspense fallback={<PickersPlaceholder />}>
              <ColorSchemePicker />
              <LanguagePicker />
            </Suspense>
          </Group>
          <Divider />
        </Stack>
        <NavMenu items={MENUS[area]} onNavigate={close} />
      </AppShell.Navbar>
      <AppShell.Main>
        <Outlet />
      </AppShell.Main>
    </AppShell>
  );
}

import { Center, Loader } from '@mantine/core';
import { Outlet, useNavigation } from 'react-router';
import { SubtitleProvider } from '../../components/PageHeader.tsx';
import { DocumentTitle } from '../DocumentTitle.tsx';

/** The root of every route: document title, subtitle holder and a loading hint while a lazy route loads. */
export function RootLayout() {
  const navigation = useNavigation();
  return (
    <SubtitleProvider>
      <DocumentTitle />
      {navigation.state === 'loading' ? (
        <Center pos="fixed" top={8} right={8} style={{ zIndex: 1000 }}>
          <Loader size="xs" aria-hidden />
        </Center>
      ) : null}
      <Outlet />
    </SubtitleProvider>
  );
}

/** Shown while the first lazy route loads. */
export function RouteFallback() {
  return (
    <Center mih="100vh">
      <Loader />
    </Center>
  );
}

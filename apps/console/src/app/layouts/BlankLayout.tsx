import { Center, Container } from '@mantine/core';
import { Outlet } from 'react-router';

/** The blank layout (spec-notes §2): login, 403 and 404, centred, without navigation. */
export function BlankLayout() {
  return (
    // The page behind the card, like the area pages' (app/theme.ts AppShell): gray 0 light, dark 8 dark.
    <Center mih="100vh" bg="light-dark(var(--mantine-color-gray-0), var(--mantine-color-dark-8))">
      <Container size={420} w="100%" py="xl">
        <Outlet />
      </Container>
    </Center>
  );
}

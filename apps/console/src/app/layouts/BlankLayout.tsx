import { Center, Container } from '@mantine/core';
import { Outlet } from 'react-router';

/** The blank layout (spec-notes §2): login, 403 and 404, centred, without navigation. */
export function BlankLayout() {
  return (
    <Center mih="100vh" bg="gray.0">
      <Container size={420} w="100%" py="xl">
        <Outlet />
      </Container>
    </Center>
  );
}

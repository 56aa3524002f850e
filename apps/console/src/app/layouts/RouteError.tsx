import { ErrorTexts } from '@cordon/shared';
import { Button, Center, Container, Paper, Text, Title } from '@mantine/core';
import { useTranslation } from 'react-i18next';
import { useRouteError } from 'react-router';

/** A page's script chunk that failed to load or took longer than `Constants.chunkTimeoutMs` (spec-notes §8, §9). */
export class ChunkLoadError extends Error {
  override readonly name = 'ChunkLoadError';
}

/**
 * True for an error of loading a lazy page: our own timeout, or the browser's failed dynamic import
 * (Chromium "Failed to fetch dynamically imported module", Firefox "error loading dynamically
 * imported module", Safari "Importing a module script failed").
 */
export function isChunkLoadError(error: unknown): boolean {
  if (error instanceof ChunkLoadError) return true;
  const message = error instanceof Error ? error.message : String(error);
  return /dynamically imported module|Importing a module script failed|ChunkLoadError/i.test(message);
}

/**
 * The router's error element (spec-notes §8 "Chunk loading failure is reported as a chunk-load error"):
 * a page that could not be loaded (a new version deployed, the network gone, or no answer within
 * 120 s) offers a reload; any other render error says "Something went wrong." with the same way out.
 */
export function RouteError() {
  const { t } = useTranslation();
  const error = useRouteError();
  const chunk = isChunkLoadError(error);
  return (
    <Center mih="100vh" p="md">
      <Container size={460} w="100%">
        <Paper withBorder p="xl" radius="md" ta="center" role="alert" data-testid="route-error">
          <Title order={1} size="h3">
            {chunk ? t('app.chunkErrorTitle') : ErrorTexts.somethingWentWrong}
          </Title>
          <Text c="dimmed" mt="xs" mb="lg">
            {chunk ? t('app.chunkErrorText') : t('app.errorText')}
          </Text>
          <Button onClick={() => window.location.reload()}>{t('app.reload')}</Button>
        </Paper>
      </Container>
    </Center>
  );
}

import { Button, Paper, Text, Title } from '@mantine/core';
import { useTranslation } from 'react-i18next';
import { Link } from 'react-router';

/** A blank-layout error page with a way back to the start page. */
export function ErrorPage({ code, title, text }: { code: string; title: string; text: string }) {
  const { t } = useTranslation();
  return (
    <Paper withBorder p="xl" radius="md" ta="center">
      <Text size="3rem" fw={800} c="dimmed" lh={1}>
        {code}
      </Text>
      <Title order={1} size="h3" mt="sm">
        {title}
      </Title>
      <Text c="dimmed" mt="xs" mb="lg">
        {text}
      </Text>
      <Button component={Link} to="/">
        {t('errors.home')}
      </Button>
    </Paper>
  );
}

import { CERTIFICATE_FILE_NAMES, type CertificateDownloadFormat } from '@cordon/shared';
import { Accordion, Button, Code, Group, List, Paper, Stack, Text, Title } from '@mantine/core';
import { useTranslation } from 'react-i18next';
import { PageHeader } from '../../components/PageHeader.tsx';
import { QueryState } from '../../components/QueryState.tsx';
import { showErrorToast, showSuccessToast } from '../../components/toast.ts';
import { pemToDer, saveFile, useRootCertificateQuery } from './api.ts';

/** Media types of the saved files (RFC 2585 for `.cer`). */
const MEDIA_TYPES: Record<CertificateDownloadFormat, string> = {
  pem: 'application/x-pem-file',
  der: 'application/x-x509-ca-cert',
  cer: 'application/pkix-cert',
};

/** The systems with install steps, in the order shown; each has `certificates.os.<id>.steps` strings. */
const SYSTEMS = ['windows', 'macos', 'linux', 'ios', 'android', 'chromeos'] as const;
/** The step keys of each system's instructions (`certificates.os.<id>.<step>`), in order. */
const steps = (n: number) => Array.from({ length: n }, (_, i) => `step${i + 1}`);
const STEPS: Record<(typeof SYSTEMS)[number], string[]> = {
  windows: steps(4),
  macos: steps(3),
  linux: steps(3),
  ios: steps(4),
  android: steps(3),
  chromeos: steps(3),
};

/**
 * `…/certificates` at customer, MSP and system level (spec-notes §2; docs/architecture.md "Block page"): the deployment's root
 * CA certificate in three formats and how to trust it on each system, so the HTTPS block page opens
 * without a certificate warning.
 */
export function CertificatesPage() {
  const { t } = useTranslation();
  const query = useRootCertificateQuery();

  const download = (pem: string, format: CertificateDownloadFormat) => {
    try {
      const data = format === 'pem' ? pem : pemToDer(pem);
      saveFile(data as BlobPart, CERTIFICATE_FILE_NAMES[format], MEDIA_TYPES[format]);
      showSuccessToast(t('certificates.downloaded', { name: CERTIFICATE_FILE_NAMES[format] }));
    } catch {
      showErrorToast(t('certificates.downloadFailed'));
    }
  };

  return (
    <>
      <PageHeader />
      <Stack gap="md" maw={760}>
        <Text>{t('certificates.intro')}</Text>
        <QueryState query={query}>
          {(pem) => (
            <Paper withBorder p="md" radius="md">
              <Title order={2} size="h4" mb="xs">
                {t('certificates.rootTitle')}
              </Title>
              <Text size="sm" c="dimmed" mb="sm">
                {t('certificates.formats')}
              </Text>
              <Group gap="sm">
                <Button
                  onClick={() => download(pem, 'pem')}
                  aria-label={t('certificates.downloadAs', { format: 'PEM' })}
                >
                  PEM
                </Button>
                <Button
                  variant="light"
                  onClick={() => download(pem, 'der')}
                  aria-label={t('certificates.downloadAs', { format: 'DER' })}
                >
                  DER
                </Button>
                <Button
                  variant="light"
                  onClick={() => download(pem, 'cer')}
                  aria-label={t('certificates.downloadAs', { format: 'CER' })}
                >
                  CER
                </Button>
              </Group>
            </Paper>
          )}
        </QueryState>
        <Paper withBorder p="md" radius="md">
          <Title order={2} size="h4" mb="xs">
            {t('certificates.installTitle')}
          </Title>
          <Accordion variant="separated" multiple>
            {SYSTEMS.map((os) => (
              <Accordion.Item key={os} value={os}>
                <Accordion.Control>{t(`certificates.os.${os}.name`)}</Accordion.Control>
                <Accordion.Panel>
                  <List type="ordered" spacing="xs" size="sm">
                    {STEPS[os].map((step) => (
                      <List.Item key={step}>{t(`certificates.os.${os}.${step}`)}</List.Item>
                    ))}
                  </List>
                  {os === 'linux' ? (
                    <Code block mt="xs">
                      {
                        'sudo cp cordon-root-ca.pem /usr/local/share/ca-certificates/cordon-root-ca.crt\nsudo update-ca-certificates'
                      }
                    </Code>
                  ) : null}
                </Accordion.Panel>
              </Accordion.Item>
            ))}
          </Accordion>
        </Paper>
      </Stack>
    </>
  );
}

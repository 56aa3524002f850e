import {
  dohQueryUrl,
  dotHostName,
  MOBILECONFIG_FILE_NAME,
  MOBILECONFIG_MEDIA_TYPE,
  type PhoneSetup,
  phoneEndpoints,
} from '@cordon/shared';
import { Button, CopyButton, Paper, Stack, Text, TextInput, Title } from '@mantine/core';
import { IconCopy, IconDeviceMobile } from '@tabler/icons-react';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { useApi } from '../api/context.ts';
import { useEndpointQuery } from '../api/hooks.ts';
import { QueryState } from './QueryState.tsx';
import { saveFile } from './saveFile.ts';
import { showErrorToast, showSuccessToast } from './toast.ts';

/** Whose key the panel sets phones up with: a device, or a roaming or virtual location. */
export type PhoneSetupSubject =
  | { readonly kind: 'device'; readonly deviceId: number }
  | { readonly kind: 'location'; readonly type: 'roaming' | 'virtual'; readonly locId: number };

/** A read-only, labelled value with a copy button (keyboard: the field is focusable and selectable, the button a button). */
function CopyField({ label, value, testId }: { label: string; value: string; testId: string }) {
  const { t } = useTranslation();
  return (
    <TextInput
      label={label}
      value={value}
      readOnly
      data-testid={testId}
      styles={{ input: { fontFamily: 'monospace' } }}
      rightSectionWidth={110}
      rightSection={
        <CopyButton value={value}>
          {({ copied, copy }) => (
            <Button
              size="compact-sm"
              variant="light"
              leftSection={<IconCopy size={14} />}
              onClick={copy}
              aria-label={t('phoneSetup.copyLabel', { label })}
            >
              {copied ? t('phoneSetup.copied') : t('phoneSetup.copy')}
            </Button>
          )}
        </CopyButton>
      }
    />
  );
}

/** The panel's body once the operator's settings are known (exported for its test). */
export function PhoneSetupBody(props: {
  customerId: number;
  secretKey: string;
  subject: PhoneSetupSubject;
  settings: PhoneSetup;
}) {
  const { t } = useTranslation();
  const api = useApi();
  const [pending, setPending] = useState(false);
  const { settings, secretKey, subject, customerId } = props;
  const dot = settings.dot_hostname === null ? null : dotHostName(secretKey, settings.dot_hostname);
  const doh = settings.doh_url === null ? null : dohQueryUrl(settings.doh_url, secretKey);
  const download = () => {
    setPending(true);
    const xml =
      subject.kind === 'device'
        ? api.call(phoneEndpoints.deviceProfile, { params: { id: customerId, deviceId: subject.deviceId } })
        : api.call(phoneEndpoints.locationProfile, {
            params: { id: customerId, type: subject.type, locId: subject.locId },
          });
    xml
      .then((text) => {
        saveFile(text, MOBILECONFIG_FILE_NAME, MOBILECONFIG_MEDIA_TYPE);
        showSuccessToast(t('phoneSetup.downloaded', { name: MOBILECONFIG_FILE_NAME }));
      })
      .catch(() => showErrorToast(t('phoneSetup.downloadFailed')))
      .finally(() => setPending(false));
  };
  return (
    <Stack gap="sm">
      <Text size="sm">{t('phoneSetup.intro')}</Text>
      {dot === null ? (
        <Text size="sm" c="dimmed" data-testid="phone-dot-missing">
          {t('phoneSetup.androidLabel')}:{' '}
          {settings.dot_hostname === null ? t('phoneSetup.notConfigured') : t('phoneSetup.tooLong')}
        </Text>
      ) : (
        <>
          <CopyField label={t('phoneSetup.androidLabel')} value={dot} testId="phone-dot-hostname" />
          <Text size="xs" c="dimmed">
            {t('phoneSetup.androidHelp')}
          </Text>
        </>
      )}
      {doh === null ? (
        <Text size="sm" c="dimmed" data-testid="phone-doh-missing">
          {t('phoneSetup.dohLabel')}: {t('phoneSetup.notConfigured')}
        </Text>
      ) : (
        <>
          <CopyField label={t('phoneSetup.dohLabel')} value={doh} testId="phone-doh-url" />
          <div>
            <Button
              variant="light"
              leftSection={<IconDeviceMobile size={16} />}
              loading={pending}
              onClick={download}
              data-testid="phone-profile-download"
            >
              {t('phoneSetup.appleButton')}
            </Button>
          </div>
          <Text size="xs" c="dimmed">
            {t('phoneSetup.appleHelp')}
          </Text>
        </>
      )}
      <Text size="xs" c="dimmed">
        {t('phoneSetup.rootHelp')}
      </Text>
    </Stack>
  );
}

/**
 * Phone set-up for a device's or a location's key (docs/agent.md "Phones"): the DoT host name to
 * type into Android's Private DNS (`<dotLabel(key)>.<the operator's --dot-hostname>`), the DoH URL
 * with the key, and a download of the Apple configuration profile that sets that DoH URL. The
 * operator's settings come from `GET /users/{id}/phone-setup`; what is not configured says so.
 */
export function PhoneSetupPanel(props: { customerId: number; secretKey: string; subject: PhoneSetupSubject }) {
  const { t } = useTranslation();
  const settings = useEndpointQuery(
    phoneEndpoints.settings,
    { params: { id: props.customerId } },
    { staleTime: Number.POSITIVE_INFINITY },
  );
  return (
    <Paper withBorder p="md" radius="md" component="section" aria-labelledby="phone-setup-title">
      <Title order={2} size="h4" mb="xs" id="phone-setup-title">
        {t('phoneSetup.title')}
      </Title>
      <QueryState query={settings}>{(s) => <PhoneSetupBody {...props} settings={s} />}</QueryState>
    </Paper>
  );
}

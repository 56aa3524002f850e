import type { LogStream } from '@cordon/shared';
import { MantineProvider } from '@mantine/core';
import { useForm } from '@mantine/form';
import type { ReactNode } from 'react';
import { renderToString } from 'react-dom/server';
import { I18nextProvider } from 'react-i18next';
import { beforeAll, describe, expect, it, vi } from 'vitest';
import { ENGLISH, loadFeatureTranslation } from '../../app/messages.ts';
import { createI18n } from '../../i18n/index.ts';
import {
  createBody,
  formValues,
  isFailing,
  LogStreamFields,
  type LogStreamFormValues,
  LogStreamList,
  updateBody,
} from './LogStreamParts.tsx';

const STREAMS: LogStream[] = [
  {
    id: 1,
    msp_id: 3,
    name: 'Splunk',
    format: 'ndjson',
    address: 'https://siem.example.com/services/collector/raw',
    ca_pem: null,
    authorization_hint: 'Splunk …f00d',
    enabled: true,
    created_at: '2026-11-27T10:00:00.000Z',
    updated_at: '2026-11-27T10:00:00.000Z',
    last_delivered_at: '2026-11-27T10:05:00.000Z',
    last_error: 'HTTP 403',
    last_error_at: '2026-11-27T10:06:00.000Z',
  },
  {
    id: 2,
    msp_id: 3,
    name: 'rsyslog',
    format: 'syslog',
    address: 'tls://logs.example.com:6514',
    ca_pem: null,
    authorization_hint: null,
    enabled: false,
    created_at: '2026-11-27T10:00:00.000Z',
    updated_at: '2026-11-27T10:00:00.000Z',
    last_delivered_at: null,
    last_error: null,
    last_error_at: null,
  },
];

async function render(node: ReactNode, lang = 'en') {
  const i18n = createI18n(ENGLISH, loadFeatureTranslation);
  await i18n.changeLanguage(lang);
  return renderToString(
    <MantineProvider>
      <I18nextProvider i18n={i18n}>{node}</I18nextProvider>
    </MantineProvider>,
  );
}

/** The form's fields for `values`, with `hint` the kept Authorization value's. */
function Fields({ values, hint }: { values: LogStreamFormValues; hint: string | null }) {
  const form = useForm<LogStreamFormValues>({ initialValues: values });
  return <LogStreamFields form={form} hint={hint} />;
}

/** The Query-log streams page's parts (issue 26; docs/operations.md "Query-log streaming" "Per-MSP destinations"). */
describe('log stream parts', () => {
  beforeAll(() => {
    // Dates go through the console's formatter, which reads the profile's time zone from storage.
    vi.stubGlobal('window', { localStorage: { getItem: () => null } });
  });

  it('lists destinations with their format, state, a current failure and the last delivery; an empty list says so', async () => {
    const html = await render(<LogStreamList rows={STREAMS} actions={() => null} />);
    expect(html).toContain('Splunk');
    expect(html).toContain('https://siem.example.com/services/collector/raw');
    expect(html).toContain('NDJSON');
    expect(html).toContain('Syslog');
    expect(html).toContain('Failing: HTTP 403');
    expect(html).toContain('dateTime="2026-11-27T10:05:00.000Z"');
    expect(await render(<LogStreamList rows={[]} actions={() => null} />)).toContain(
      'No destination yet: your customers&#x27; queries are not streamed.',
    );
  });

  it('knows a failure older than the last delivery is over', () => {
    expect(isFailing(STREAMS[0]!)).toBe(true);
    expect(isFailing({ ...STREAMS[0]!, last_delivered_at: '2026-11-27T10:07:00.000Z' })).toBe(false);
    expect(isFailing(STREAMS[1]!)).toBe(false);
  });

  it('labels every field; the Authorization header only for NDJSON, its kept value as a hint with a removal box', async () => {
    const ndjson = await render(<Fields values={formValues(STREAMS[0])} hint="Splunk …f00d" />);
    for (const label of ['Name', 'Format', 'Address', 'Authorization header', 'CA certificates (PEM)']) {
      expect(ndjson).toContain(label);
    }
    expect(ndjson).toContain('Kept: Splunk …f00d');
    expect(ndjson).toContain('Remove the Authorization header');
    const syslog = await render(<Fields values={formValues(STREAMS[1])} hint={null} />);
    expect(syslog).not.toContain('Authorization header');
    expect(syslog).toContain('tls://host:port');
  });

  it('sends the Authorization value only when typed or removed, never a syslog one', () => {
    const base = formValues(STREAMS[0]);
    expect(updateBody(base)).not.toHaveProperty('authorization');
    expect(updateBody({ ...base, removeAuthorization: true })).toMatchObject({ authorization: null });
    expect(updateBody({ ...base, authorization: 'Splunk new' })).toMatchObject({ authorization: 'Splunk new' });
    expect(createBody({ ...formValues(STREAMS[1]), authorization: 'x' })).toMatchObject({ authorization: null });
    expect(createBody({ ...base, ca_pem: '  ' })).toMatchObject({ ca_pem: null });
  });

  it('speaks French', async () => {
    const html = await render(<LogStreamList rows={STREAMS} actions={() => null} />, 'fr');
    expect(html).toContain('En échec : HTTP 403');
    expect(html).toContain('Dernier envoi');
    expect(await render(<Fields values={formValues(STREAMS[0])} hint="Splunk …f00d" />, 'fr')).toContain(
      'En-tête Authorization',
    );
  });
});

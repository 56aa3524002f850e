import type { ApiToken, ApiTokenAccess, ApiTokenCreated } from '@cordon/shared';
import {
  Alert,
  Badge,
  Button,
  Code,
  CopyButton,
  Group,
  Modal,
  NumberInput,
  Paper,
  PasswordInput,
  Select,
  Stack,
  Table,
  Text,
  TextInput,
} from '@mantine/core';
import { useDisclosure } from '@mantine/hooks';
import { type ReactNode, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { ConfirmDialog } from '../../components/ConfirmDialog.tsx';
import { effectiveTimeZone, formatDateTime } from '../../components/format.ts';
import { PageHeader } from '../../components/PageHeader.tsx';
import { QueryState } from '../../components/QueryState.tsx';
import { showSuccessToast } from '../../components/toast.ts';
import { useApiTokensQuery, useCreateApiTokenMutation, useProfileQuery, useRevokeApiTokenMutation } from './api.ts';

/** The per-field messages of a failed call (a 400 names the fields at fault). */
function fieldsOf(error: Error | null): Record<string, string> {
  return error && 'fields' in error ? ((error as { fields?: Record<string, string> }).fields ?? {}) : {};
}

/** "Revoke": a confirmation naming the token and what stops working, then the call. */
function RevokeButton({ token }: { token: ApiToken }) {
  const { t } = useTranslation();
  const [opened, { open, close }] = useDisclosure(false);
  const revoke = useRevokeApiTokenMutation(token.id);
  return (
    <>
      <Button
        size="xs"
        color="red"
        variant="light"
        onClick={open}
        aria-label={t('apiTokens.revokeNamed', { name: token.name })}
      >
        {t('apiTokens.revoke')}
      </Button>
      <ConfirmDialog
        opened={opened}
        onClose={close}
        title={t('apiTokens.revokeTitle', { name: token.name })}
        text={t('apiTokens.revokeText', { name: token.name })}
        confirmLabel={t('apiTokens.revoke')}
        loading={revoke.isPending}
        onConfirm={() =>
          revoke.mutateAsync(undefined, {
            onSuccess: () => showSuccessToast(t('apiTokens.revoked', { name: token.name })),
          })
        }
      />
    </>
  );
}

/**
 * The tokens as a table (name, access, created, last use and address, expiry, status), dates in the
 * user's time zone; `actions` renders a row's actions (the revoke button on the page).
 */
export function ApiTokensTable(props: {
  tokens: readonly ApiToken[];
  lang: string;
  timeZone: string | undefined;
  now: number;
  actions?: (token: ApiToken) => ReactNode;
}) {
  const { t } = useTranslation();
  if (props.tokens.length === 0) return <Text data-testid="api-tokens-empty">{t('apiTokens.empty')}</Text>;
  const when = (iso: string) => formatDateTime(iso, props.lang, props.timeZone);
  return (
    <Table.ScrollContainer minWidth={720}>
      <Table>
        <Table.Thead>
          <Table.Tr>
            <Table.Th>{t('apiTokens.name')}</Table.Th>
            <Table.Th>{t('apiTokens.access')}</Table.Th>
            <Table.Th>{t('apiTokens.created')}</Table.Th>
            <Table.Th>{t('apiTokens.lastUsed')}</Table.Th>
            <Table.Th>{t('apiTokens.expires')}</Table.Th>
            <Table.Th>{t('apiTokens.status')}</Table.Th>
            <Table.Th />
          </Table.Tr>
        </Table.Thead>
        <Table.Tbody>
          {props.tokens.map((tok) => {
            const expired = tok.expires_at !== null && Date.parse(tok.expires_at) <= props.now;
            const status = tok.revoked_at !== null ? 'revokedStatus' : expired ? 'expiredStatus' : 'activeStatus';
            return (
              <Table.Tr key={tok.id}>
                <Table.Td>
                  {tok.name} <Code>{`cdn_${tok.prefix}_…`}</Code>
                </Table.Td>
                <Table.Td>{t(`apiTokens.accessLevels.${tok.access}`)}</Table.Td>
                <Table.Td>{when(tok.created_at)}</Table.Td>
                <Table.Td>
                  {tok.last_used_at === null
                    ? t('apiTokens.never')
                    : t('apiTokens.usedFrom', { when: when(tok.last_used_at), ip: tok.last_used_ip ?? '?' })}
                </Table.Td>
                <Table.Td>{tok.expires_at === null ? t('apiTokens.noExpiry') : when(tok.expires_at)}</Table.Td>
                <Table.Td>
                  <Badge color={status === 'activeStatus' ? 'green' : 'gray'} variant="light">
                    {t(`apiTokens.${status}`)}
                  </Badge>
                </Table.Td>
                <Table.Td>{status === 'activeStatus' && props.actions ? props.actions(tok) : null}</Table.Td>
              </Table.Tr>
            );
          })}
        </Table.Tbody>
      </Table>
    </Table.ScrollContainer>
  );
}

/** The new token's secret, shown once, with a copy button and the warning that it will not be shown again. */
export function CreatedSecret({ created, onDone }: { created: ApiTokenCreated; onDone: () => void }) {
  const { t } = useTranslation();
  return (
    <Stack>
      <Alert color="yellow">{t('apiTokens.secretOnce')}</Alert>
      <Code block data-testid="api-token-secret">
        {created.secret}
      </Code>
      <Group>
        <CopyButton value={created.secret}>
          {({ copied, copy }) => (
            <Button variant="light" onClick={copy}>
              {copied ? t('apiTokens.copied') : t('apiTokens.copy')}
            </Button>
          )}
        </CopyButton>
        <Button onClick={onDone}>{t('apiTokens.savedSecret')}</Button>
      </Group>
    </Stack>
  );
}

/** What the create form holds. */
export interface TokenDraft {
  name: string;
  access: ApiTokenAccess;
  /** Days until expiry; '' never expires. */
  days: number | '';
  password: string;
  code: string;
}

/** A new form: read-only, 90 days, nothing typed. */
export const EMPTY_DRAFT: TokenDraft = { name: '', access: 'read', days: 90, password: '', code: '' };

/** The create form's fields: name, access, expiry in days, the current password and, with 2FA on, the code. */
export function CreateTokenFields(props: {
  draft: TokenDraft;
  onChange: (draft: TokenDraft) => void;
  twoFactor: boolean;
  errors: Record<string, string>;
}) {
  const { t } = useTranslation();
  const { draft, onChange } = props;
  return (
    <Stack>
      <TextInput
        label={t('apiTokens.name')}
        description={t('apiTokens.nameHint')}
        required
        value={draft.name}
        onChange={(e) => onChange({ ...draft, name: e.currentTarget.value })}
        error={props.errors['name']}
        data-autofocus
      />
      <Select
        label={t('apiTokens.access')}
        data={[
          { value: 'read', label: t('apiTokens.accessLevels.read') },
          { value: 'read-write', label: t('apiTokens.accessLevels.read-write') },
        ]}
        value={draft.access}
        allowDeselect={false}
        onChange={(v) => onChange({ ...draft, access: v === 'read-write' ? 'read-write' : 'read' })}
      />
      <NumberInput
        label={t('apiTokens.expiresInDays')}
        description={t('apiTokens.expiresHint')}
        min={1}
        max={3650}
        allowDecimal={false}
        clampBehavior="none"
        value={draft.days}
        onChange={(v) => onChange({ ...draft, days: typeof v === 'number' ? v : '' })}
        error={props.errors['expires_in_days']}
      />
      <PasswordInput
        label={t('profile.currentPassword')}
        autoComplete="current-password"
        required
        value={draft.password}
        onChange={(e) => onChange({ ...draft, password: e.currentTarget.value })}
        error={props.errors['current_password']}
      />
      {props.twoFactor ? (
        <TextInput
          label={t('apiTokens.code')}
          description={t('apiTokens.codeHint')}
          autoComplete="one-time-code"
          required
          value={draft.code}
          onChange={(e) => onChange({ ...draft, code: e.currentTarget.value })}
          error={props.errors['code']}
        />
      ) : null}
    </Stack>
  );
}

/** "New token": the dialog with the form, then the secret shown once. */
function CreateButton({ twoFactor }: { twoFactor: boolean }) {
  const { t } = useTranslation();
  const [opened, { open, close }] = useDisclosure(false);
  const [draft, setDraft] = useState<TokenDraft>(EMPTY_DRAFT);
  const [created, setCreated] = useState<ApiTokenCreated | null>(null);
  const create = useCreateApiTokenMutation();
  const finish = () => {
    setCreated(null);
    setDraft(EMPTY_DRAFT);
    create.reset();
    close();
  };
  return (
    <>
      <Button onClick={open}>{t('apiTokens.create')}</Button>
      <Modal
        opened={opened}
        onClose={finish}
        title={created ? t('apiTokens.createdTitle', { name: created.name }) : t('apiTokens.create')}
        centered
        closeOnClickOutside={created === null}
      >
        {created ? (
          <CreatedSecret created={created} onDone={finish} />
        ) : (
          <form
            onSubmit={(e) => {
              e.preventDefault();
              create.mutate(
                {
                  name: draft.name,
                  access: draft.access,
                  current_password: draft.password,
                  ...(draft.days === '' ? {} : { expires_in_days: draft.days }),
                  ...(twoFactor ? { code: draft.code } : {}),
                },
                {
                  onSuccess: (answer) => {
                    setCreated(answer);
                    showSuccessToast(t('apiTokens.createdToast', { name: answer.name }));
                  },
                },
              );
            }}
          >
            <Stack>
              <Text size="sm">{t('apiTokens.createText')}</Text>
              <CreateTokenFields
                draft={draft}
                onChange={setDraft}
                twoFactor={twoFactor}
                errors={fieldsOf(create.error)}
              />
              <Group justify="flex-end">
                <Button variant="default" onClick={finish}>
                  {t('common.cancel')}
                </Button>
                <Button
                  type="submit"
                  loading={create.isPending}
                  disabled={
                    draft.name.trim() === '' || draft.password === '' || (twoFactor && draft.code.trim() === '')
                  }
                >
                  {t('apiTokens.create')}
                </Button>
              </Group>
            </Stack>
          </form>
        )}
      </Modal>
    </>
  );
}

/**
 * `/profile/api-tokens` (issue 26; docs/api.md "API tokens"): the signed-in admin's tokens for
 * automation — listed with creation, last use and address, expiry, in the user's time zone; created
 * with the current password (and the 2FA code when 2FA is on), the secret shown once; revoked after
 * a confirmation naming what stops working.
 */
export function ApiTokensPage() {
  const { t, i18n } = useTranslation();
  const tokens = useApiTokensQuery();
  const profile = useProfileQuery();
  return (
    <>
      <PageHeader />
      <Paper withBorder p="md" radius="md">
        <Stack>
          <Text size="sm">{t('apiTokens.intro')}</Text>
          <Group>
            <CreateButton twoFactor={profile.data?.twoFactorAuthEnabled === true} />
          </Group>
          <QueryState query={tokens}>
            {(list) => (
              <ApiTokensTable
                tokens={list.data}
                lang={i18n.language}
                timeZone={effectiveTimeZone()}
                now={Date.now()}
                actions={(tok) => <RevokeButton token={tok} />}
              />
            )}
          </QueryState>
        </Stack>
      </Paper>
    </>
  );
}

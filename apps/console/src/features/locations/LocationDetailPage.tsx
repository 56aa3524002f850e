import {
  LOCATION_TYPES,
  type Location,
  type LocationType,
  Messages,
  type OtherLocationType,
  otherLocationUpdateSchema,
  staticIpLocationUpdateSchema,
} from '@cordon/shared';
import { Anchor, Button, Code, CopyButton, Group, Paper, Stack, Text, TextInput, Title } from '@mantine/core';
import { useForm } from '@mantine/form';
import { IconArrowLeft, IconCopy, IconKey } from '@tabler/icons-react';
import { useTranslation } from 'react-i18next';
import { Link, Navigate, useNavigate, useParams } from 'react-router';
import { ConfirmDeleteButton } from '../../components/ConfirmDeleteButton.tsx';
import { LocationEffectivePolicyPanel } from '../../components/EffectivePolicyPanel.tsx';
import { applyServerErrors } from '../../components/form.ts';
import { useFormat } from '../../components/format.ts';
import { PageHeader, usePageSubtitle } from '../../components/PageHeader.tsx';
import { PhoneSetupPanel } from '../../components/PhoneSetupPanel.tsx';
import { QueryState } from '../../components/QueryState.tsx';
import { showSuccessToast } from '../../components/toast.ts';
import { useCustomerId } from '../../session/context.ts';
import {
  useDeleteLocationMutation,
  useLocationDependantsFetcher,
  useOtherLocationQuery,
  useRateLimitsQuery,
  useStaticLocationQuery,
  useUpdateOtherLocationMutation,
  useUpdateStaticIpLocationMutation,
} from './api.ts';
import {
  INHERIT,
  type LocationFormValues,
  LocationTypeFields,
  newAddress,
  PolicySelect,
  prepareLocation,
  toFormErrors,
  validateLocation,
} from './LocationCreateForm.tsx';

const LIST = '/customer/environment/locations';

/** A secret with a copy button (keys, URLs). */
function Secret({ label, value, testId }: { label: string; value: string; testId: string }) {
  const { t } = useTranslation();
  return (
    <Stack gap={4}>
      <Text size="sm" fw={500}>
        {label}
      </Text>
      <Group gap="xs" wrap="nowrap" align="center">
        <Code data-testid={testId} style={{ overflowWrap: 'anywhere', flex: 1 }}>
          {value}
        </Code>
        <CopyButton value={value}>
          {({ copied, copy }) => (
            <Button size="compact-sm" variant="light" leftSection={<IconCopy size={14} />} onClick={copy}>
              {copied ? t('locations.copied') : t('locations.copy')}
            </Button>
          )}
        </CopyButton>
      </Group>
    </Stack>
  );
}

/** The key of a keyed location, how it is used (update URL or DoH path), and "New key". */
function KeyPanel({ customerId, location }: { customerId: number; location: Location }) {
  const { t } = useTranslation();
  const update = useUpdateOtherLocationMutation(customerId, location.type as OtherLocationType, location.id);
  if (location.key === null) return null;
  const origin = window.location.origin;
  return (
    <Paper withBorder p="md" radius="md">
      <Stack>
        <Title order={2} size="h4">
          {t('locations.keyTitle')}
        </Title>
        <Secret label={t('locations.key')} value={location.key} testId="location-key" />
        {location.type === 'dynamicip' ? (
          <Secret
            label={t('locations.updateUrl')}
            value={`${origin}/restapi/locations/dynamicip/update?key=${location.key}&myip=`}
            testId="location-update-url"
          />
        ) : (
          <Secret label={t('locations.dohPath')} value={`/dns-query/${location.key}`} testId="location-doh" />
        )}
        <Text size="sm" c="dimmed">
          {t(`locations.keyHelp.${location.type}`)}
        </Text>
        <Group>
          <Button
            variant="light"
            leftSection={<IconKey size={16} />}
            loading={update.isPending}
            onClick={() =>
              void update
                .mutateAsync({ regenerate_key: true })
                .then(() => showSuccessToast(t('locations.keyRegenerated')))
                .catch(() => undefined)
            }
          >
            {t('locations.regenerateKey')}
          </Button>
        </Group>
      </Stack>
    </Paper>
  );
}

/** The edit form of a location of any type: name, policy and the type's own fields. */
function LocationEditForm({ customerId, location }: { customerId: number; location: Location }) {
  const { t } = useTranslation();
  const type = location.type;
  const other = (type === 'staticip' ? 'virtual' : type) as OtherLocationType;
  const updateStatic = useUpdateStaticIpLocationMutation(customerId, location.id);
  const updateOther = useUpdateOtherLocationMutation(customerId, other, location.id);
  const form = useForm<LocationFormValues>({
    initialValues: {
      name: location.name,
      policy: location.policy_id === null ? INHERIT : String(location.policy_id),
      addresses: location.addresses.length > 0 ? location.addresses.map((a) => newAddress(a.ip)) : [newAddress()],
      hostname: location.hostname ?? '',
      ip: '',
    },
    validate: (values) => validateLocation(type, values, Messages.required),
  });
  // mutateAsync: the form remounts with the saved values, and a mutate() callback would be lost then.
  const submit = form.onSubmit((values) => {
    const saved =
      type === 'staticip'
        ? updateStatic.mutateAsync(staticIpLocationUpdateSchema.parse(prepareLocation(type, values)))
        : updateOther.mutateAsync(otherLocationUpdateSchema.parse(prepareLocation(type, values)));
    saved
      .then(() => showSuccessToast(t('locations.saved')))
      .catch((error: unknown) => applyServerErrors(form, error, toFormErrors));
  });
  return (
    <form onSubmit={submit} noValidate>
      <Stack>
        <Title order={2} size="h4">
          {t('locations.details')}
        </Title>
        <TextInput label={t('common.name')} required {...form.getInputProps('name')} />
        <PolicySelect customerId={customerId} {...form.getInputProps('policy')} />
        <LocationTypeFields type={type} form={form} editing />
        <Group justify="flex-end">
          <Button type="submit" loading={updateStatic.isPending || updateOther.isPending}>
            {t('common.save')}
          </Button>
        </Group>
      </Stack>
    </form>
  );
}

/** What the data plane knows of a dynamic location: its addresses, when they changed, the last resolution error. */
function DynamicState({ location }: { location: Location }) {
  const { t } = useTranslation();
  const fmt = useFormat();
  if (location.type !== 'dynamicdns' && location.type !== 'dynamicip') return null;
  return (
    <Paper withBorder p="md" radius="md">
      <Stack gap="xs">
        <Title order={2} size="h4">
          {t('locations.addresses')}
        </Title>
        <Text size="sm" data-testid="location-addresses">
          {location.addresses.map((a) => a.ip).join(', ') || t('locations.noAddressYet')}
        </Text>
        {location.addresses_updated_at ? (
          <Text size="sm" c="dimmed">
            {t('locations.updatedAt', { at: fmt.dateTime(location.addresses_updated_at) })}
          </Text>
        ) : null}
        {location.resolve_error ? (
          <Text size="sm" c="red" role="status">
            {location.resolve_error}
          </Text>
        ) : null}
      </Stack>
    </Paper>
  );
}

/**
 * The query rate limit that applies to a location of `type` (docs/operations.md "Response-rate
 * limiting"): `qps`, the operator's per-location limit (null: off), for a location claimed by
 * address; none for a keyed (roaming, virtual) one.
 */
export function RateLimitBody({ type, qps }: { type: LocationType; qps: number | null }) {
  const { t } = useTranslation();
  const fmt = useFormat();
  const keyed = type === 'roaming' || type === 'virtual';
  return (
    <Stack gap="xs">
      <Title order={2} size="h4">
        {t('locations.rateLimitTitle')}
      </Title>
      <Text size="sm" data-testid="location-rate-limit">
        {keyed
          ? t('locations.rateLimitKeyed')
          : qps === null
            ? t('locations.rateLimitOff')
            : t('locations.rateLimitValue', { qps: fmt.number(qps) })}
      </Text>
    </Stack>
  );
}

/** {@link RateLimitBody} with the operator's limits (`GET /users/{id}/locations/rate-limits`). */
function RateLimit({ customerId, location }: { customerId: number; location: Location }) {
  const limits = useRateLimitsQuery(customerId);
  if (limits.data === undefined) return null;
  return (
    <Paper withBorder p="md" radius="md">
      <RateLimitBody type={location.type} qps={limits.data.location_qps} />
    </Paper>
  );
}

function LocationDetail({ type, id }: { type: LocationType; id: number }) {
  const { t } = useTranslation();
  const navigate = useNavigate();
  const customerId = useCustomerId();
  const isStatic = type === 'staticip';
  const staticQuery = useStaticLocationQuery(customerId, id, isStatic);
  const otherQuery = useOtherLocationQuery(
    customerId,
    (isStatic ? 'virtual' : type) as OtherLocationType,
    id,
    !isStatic,
  );
  const query = isStatic ? staticQuery : otherQuery;
  const remove = useDeleteLocationMutation(customerId, type, id);
  const fetchDependants = useLocationDependantsFetcher(customerId, () => type);
  usePageSubtitle(query.data?.name);
  return (
    <>
      <Anchor component={Link} to={LIST} size="sm">
        <IconArrowLeft size={14} style={{ verticalAlign: 'middle' }} /> {t('locations.back')}
      </Anchor>
      <PageHeader />
      <QueryState query={query}>
        {(location) => (
          <Stack maw={760}>
            <Text c="dimmed">{t(`locations.types.${location.type}`)}</Text>
            <Paper withBorder p="md" radius="md">
              <LocationEditForm key={JSON.stringify(location)} customerId={customerId} location={location} />
            </Paper>
            <LocationEffectivePolicyPanel customerId={customerId} locationId={location.id} />
            <DynamicState location={location} />
            <RateLimit customerId={customerId} location={location} />
            <KeyPanel customerId={customerId} location={location} />
            {(location.type === 'roaming' || location.type === 'virtual') && location.key !== null ? (
              <PhoneSetupPanel
                customerId={customerId}
                secretKey={location.key}
                subject={{ kind: 'location', type: location.type, locId: location.id }}
              />
            ) : null}
            <Group>
              <ConfirmDeleteButton
                label={t('common.delete')}
                title={t('locations.confirmDeleteTitle')}
                text={[
                  t('locations.confirmDeleteText', { name: location.name }),
                  ...(location.addresses.length > 0
                    ? [
                        t('locations.confirmDeleteAddresses', {
                          addresses: location.addresses.map((a) => a.ip).join(', '),
                          name: location.name,
                        }),
                      ]
                    : []),
                ].join(' ')}
                item={{ id: location.id, name: location.name }}
                kind="locations"
                fetchDependants={fetchDependants}
                loading={remove.isPending}
                onConfirm={async () => {
                  const outcome = await remove.run();
                  if (outcome.succeeded.length === 1) {
                    showSuccessToast(t('locations.deleted'));
                    navigate(LIST);
                  }
                }}
              />
            </Group>
          </Stack>
        )}
      </QueryState>
    </>
  );
}

/** `/customer/environment/locations/{type}/{id}` (spec-notes §2 "location id"): edit, key, update URL, delete. */
export function LocationDetailPage() {
  const params = useParams();
  const id = Number(params['id']);
  const type = params['type'] as LocationType;
  if (!(LOCATION_TYPES as readonly string[]).includes(type) || !Number.isInteger(id) || id <= 0) {
    return <Navigate to="/404" replace />;
  }
  return <LocationDetail key={`${type}/${id}`} type={type} id={id} />;
}

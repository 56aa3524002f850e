import {
  type EffectivePolicy,
  type EffectiveStep,
  effectivePolicyEndpoints,
  type PolicyRef,
  policyEndpoints,
} from '@cordon/shared';
import { Anchor, Badge, List, Paper, Stack, Text, Title } from '@mantine/core';
import type { ReactNode } from 'react';
import { useTranslation } from 'react-i18next';
import { Link } from 'react-router';
import { useEndpointQuery } from '../api/hooks.ts';
import { useCustomerId } from '../session/context.ts';
import { QueryState } from './QueryState.tsx';

const POLICY = (id: number) => `/customer/content_filtering/policies/${id}`;
const USER = (id: number) => `/customer/environment/users/${id}`;
const GROUP = (id: number) => `/customer/environment/groups/${id}`;
const DEVICE = (id: number) => `/customer/environment/devices/${id}`;

/** A policy as a link to its page, or "none". */
function PolicyLink({ policy }: { policy: PolicyRef | null }) {
  const { t } = useTranslation();
  if (policy === null) return <>{t('effectivePolicy.noPolicy')}</>;
  return (
    <Anchor component={Link} to={POLICY(policy.id)} fz="inherit">
      {policy.name}
    </Anchor>
  );
}

/** The subject of a step ("Device laptop", "User alice", "Group Staff (rank 1)"…), linked where it has a page. */
function StepSubject({ step }: { step: EffectiveStep }) {
  const { t } = useTranslation();
  const named = (label: string, to: string | null) => (
    <>
      {label}{' '}
      {to === null ? (
        <strong>{step.name}</strong>
      ) : (
        <Anchor component={Link} to={to} fw={600} fz="inherit">
          {step.name}
        </Anchor>
      )}
    </>
  );
  switch (step.source) {
    case 'device':
      return named(t('effectivePolicy.device'), step.id === null ? null : DEVICE(step.id));
    case 'user':
      return named(t('effectivePolicy.user'), step.id === null ? null : USER(step.id));
    case 'group':
      return (
        <>
          {named(t('effectivePolicy.group'), step.id === null ? null : GROUP(step.id))}{' '}
          {t('effectivePolicy.rank', { rank: step.rank ?? 0 })}
        </>
      );
    case 'location':
      return named(t('effectivePolicy.location'), null);
    case 'device_configuration':
      return <>{t('effectivePolicy.deviceConfiguration')}</>;
    case 'named_policy':
      return <>{t('effectivePolicy.namedPolicy')}</>;
    case 'customer_default':
      return <>{t('effectivePolicy.customerDefault')}</>;
  }
}

/** What a step did, in words (docs/api.md "Effective policy"). */
function stepText(step: EffectiveStep, t: (key: string) => string): string {
  if (step.outcome === 'choice') return t(`effectivePolicy.mode.${step.mode ?? 'default'}`);
  if (step.outcome === 'ignored') return t('effectivePolicy.ignored');
  if (step.outcome === 'no_policy') return t(`effectivePolicy.none.${step.source}`);
  return t('effectivePolicy.chosen');
}

/** One answer: the policy in force and its chain as an ordered list, the chosen step marked. */
export function EffectiveChain({
  answer,
  heading,
}: {
  answer: Pick<EffectivePolicy, 'policy' | 'chain'>;
  heading: ReactNode;
}) {
  const { t } = useTranslation();
  return (
    <Stack gap={4}>
      <Text size="sm">
        {heading}: <PolicyLink policy={answer.policy} />
      </Text>
      <List type="ordered" size="sm" spacing={2} withPadding>
        {answer.chain.map((step, i) => (
          <List.Item key={`${step.source}-${step.id ?? i}`}>
            <StepSubject step={step} />: {stepText(step, t)}
            {step.policy !== null && step.outcome !== 'choice' ? (
              <>
                {' '}
                → <PolicyLink policy={step.policy} />
              </>
            ) : null}
            {step.policy !== null && step.outcome === 'choice' ? (
              <>
                {' '}
                (<PolicyLink policy={step.policy} />)
              </>
            ) : null}
            {step.applied ? (
              <Badge ml="xs" size="sm" variant="light" color="teal">
                {t('effectivePolicy.inForce')}
              </Badge>
            ) : null}
          </List.Item>
        ))}
      </List>
    </Stack>
  );
}

function Panel({ children }: { children: ReactNode }) {
  const { t } = useTranslation();
  return (
    <Paper withBorder p="md" radius="md" data-testid="effective-policy">
      <Stack gap="sm">
        <Title order={2} size="h4">
          {t('effectivePolicy.title')}
        </Title>
        {children}
      </Stack>
    </Paper>
  );
}

/**
 * "Policy in force" of a device (issue 29; docs/api.md "Effective policy"): per bound user the policy
 * the resolver applies when the agent reports that user, then without a user, each with its chain;
 * and the device exception, which routes names but chooses no policy.
 */
export function DeviceEffectivePolicyPanel({ customerId, deviceId }: { customerId: number; deviceId: number }) {
  const { t } = useTranslation();
  const query = useEndpointQuery(effectivePolicyEndpoints.device, { params: { id: customerId, deviceId } });
  return (
    <Panel>
      <QueryState query={query}>
        {(e) => (
          <Stack gap="md">
            {e.users.map((answer) => (
              <EffectiveChain
                key={answer.user?.id}
                answer={answer}
                heading={t('effectivePolicy.whenUser', { user: answer.user?.name ?? '' })}
              />
            ))}
            <EffectiveChain
              answer={e.without_user}
              heading={e.users.length > 0 ? t('effectivePolicy.withoutUser') : t('effectivePolicy.inForce')}
            />
            {e.exception !== null ? (
              <Text size="sm" c="dimmed">
                {t('effectivePolicy.exception', { name: e.exception.name })}
              </Text>
            ) : null}
          </Stack>
        )}
      </QueryState>
    </Panel>
  );
}

/**
 * "Policy in force" of an internal user: its own policy, then its group's (which count on every
 * device whose choice is not "inherit the default policy"), and its policy on each device it is bound to.
 */
export function UserEffectivePolicyPanel({ customerId, userId }: { customerId: number; userId: number }) {
  const { t } = useTranslation();
  const query = useEndpointQuery(effectivePolicyEndpoints.user, { params: { id: customerId, userId } });
  return (
    <Panel>
      <QueryState query={query}>
        {(e) => (
          <Stack gap="md">
            <EffectiveChain
              answer={e}
              heading={e.policy === null ? t('effectivePolicy.userNoPolicy') : t('effectivePolicy.userPolicy')}
            />
            {e.devices.length === 0 ? (
              <Text size="sm" c="dimmed">
                {t('effectivePolicy.noDevices')}
              </Text>
            ) : (
              e.devices.map((answer) => (
                <EffectiveChain
                  key={answer.device?.id}
                  answer={answer}
                  heading={t('effectivePolicy.onDevice', { device: answer.device?.name ?? '' })}
                />
              ))
            )}
          </Stack>
        )}
      </QueryState>
    </Panel>
  );
}

/** "Policy in force" of a location: its own policy, else the customer's default. */
export function LocationEffectivePolicyPanel({ customerId, locationId }: { customerId: number; locationId: number }) {
  const { t } = useTranslation();
  const query = useEndpointQuery(effectivePolicyEndpoints.location, {
    params: { id: customerId, locId: locationId },
  });
  return (
    <Panel>
      <QueryState query={query}>
        {(e) => <EffectiveChain answer={e} heading={t('effectivePolicy.inForce')} />}
      </QueryState>
    </Panel>
  );
}

/**
 * A History row's deciding policy (the query log's `policy_id`: the policy in force for the identity
 * that asked, docs/api.md "History") of the customer in scope as a link to its page, named from the customer's policies (one
 * cached read shared by every row); a policy deleted since shows as such.
 */
export function HistoryPolicy({ policyId }: { policyId: number | null }) {
  const { t } = useTranslation();
  // History is a customer-area page: the route guard puts a customer in scope.
  const customerId = useCustomerId();
  const policies = useEndpointQuery(policyEndpoints.list, {
    query: { user_id: customerId, limit: 10_000, offset: 0, sortkey: 'name', sortdir: 'asc', show_default: 'true' },
  });
  if (policyId === null) return null;
  const name = policies.data?.data.find((p) => p.id === policyId)?.name;
  if (name === undefined) {
    return policies.isPending ? null : <Text size="sm">{t('effectivePolicy.deletedPolicy')}</Text>;
  }
  return (
    <Anchor component={Link} to={POLICY(policyId)} size="sm" title={t('effectivePolicy.historyTitle')}>
      {name}
    </Anchor>
  );
}

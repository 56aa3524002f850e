import type { PolicyMode } from '@cordon/shared';
import { Select, Stack } from '@mantine/core';
import { useTranslation } from 'react-i18next';
import { useExceptionChoicesQuery, usePolicyChoicesQuery } from './api.ts';

/** The value of the device-exception select meaning "none of its own" (the wire's null). */
export const NO_EXCEPTION = 'none';

/** The form values of a policy choice (spec-notes §4 "Policy inheritance choices") and a device exception. */
export interface PolicyChoiceValues {
  policy_mode: PolicyMode;
  policy: string;
  exception: string;
}

/** Form values → the wire's `policy_mode`, `policy_id` and `device_exception_id`. */
export function preparePolicyChoice(v: PolicyChoiceValues) {
  return {
    policy_mode: v.policy_mode,
    policy_id: v.policy_mode === 'policy' && v.policy !== '' ? Number(v.policy) : null,
    device_exception_id: v.exception === NO_EXCEPTION ? null : Number(v.exception),
  };
}

/** The wire's `policy_mode`, `policy_id` and `device_exception_id` (a device, or the customer's device configuration) → form values. */
export function policyChoiceValues(row: {
  policy_mode: PolicyMode;
  policy_id: number | null;
  device_exception_id: number | null;
}): PolicyChoiceValues {
  return {
    policy_mode: row.policy_mode,
    policy: row.policy_id === null ? '' : String(row.policy_id),
    exception: row.device_exception_id === null ? NO_EXCEPTION : String(row.device_exception_id),
  };
}

/** Server field errors (`policy_id`, `device_exception_id`, …) → the form's fields (`policy`, `exception`, …). */
export function policyChoiceFieldErrors<V>(errors: Record<string, V>): Record<string, V> {
  return Object.fromEntries(
    Object.entries(errors).map(([k, v]) => [
      k === 'policy_id' ? 'policy' : k === 'device_exception_id' ? 'exception' : k,
      v,
    ]),
  );
}

/**
 * The inherit choice (inherit the default policy, inherit group or default policy, a specific
 * policy — with "Select a policy" then), and the device exception. `inheritLabel` names what
 * "default" means here (the customer's device configuration on a device).
 */
export function PolicyChoiceFields(props: {
  customerId: number;
  disabled?: boolean;
  inheritExceptionLabel: string;
  mode: { value: string; onChange: (v: string | null) => void; error?: unknown };
  policy: { value: string; onChange: (v: string | null) => void; error?: unknown };
  exception: { value: string; onChange: (v: string | null) => void; error?: unknown };
}) {
  const { t } = useTranslation();
  const policies = usePolicyChoicesQuery(props.customerId);
  const exceptions = useExceptionChoicesQuery(props.customerId);
  return (
    <Stack>
      <Select
        label={t('devices.policyMode')}
        data={[
          { value: 'default', label: t('devices.modes.default') },
          { value: 'group', label: t('devices.modes.group') },
          { value: 'policy', label: t('devices.modes.policy') },
        ]}
        allowDeselect={false}
        disabled={props.disabled}
        value={props.mode.value}
        onChange={props.mode.onChange}
      />
      {props.mode.value === 'policy' ? (
        <Select
          label={t('devices.policy')}
          placeholder={t('devices.selectPolicy')}
          data={(policies.data?.data ?? []).map((p) => ({ value: String(p.id), label: p.name }))}
          required
          allowDeselect={false}
          disabled={props.disabled}
          value={props.policy.value || null}
          onChange={props.policy.onChange}
          error={props.policy.error as string | undefined}
        />
      ) : null}
      <Select
        label={t('devices.exception')}
        data={[
          { value: NO_EXCEPTION, label: props.inheritExceptionLabel },
          ...(exceptions.data?.data ?? []).map((e) => ({ value: String(e.id), label: e.name })),
        ]}
        allowDeselect={false}
        disabled={props.disabled}
        value={props.exception.value}
        onChange={props.exception.onChange}
        error={props.exception.error as string | undefined}
      />
    </Stack>
  );
}

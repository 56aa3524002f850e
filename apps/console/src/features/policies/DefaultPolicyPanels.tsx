import { Text } from '@mantine/core';
import { useTranslation } from 'react-i18next';
import { QueryState } from '../../components/QueryState.tsx';
import { type DefaultPolicyOwner, useDefaultPolicyCategoriesQuery, useDefaultPolicyQuery } from './defaultApi.ts';
import { PolicyEditor } from './PolicyEditor.tsx';

/**
 * The "Policy Details" of a default policy (spec-notes §2): the policy editor (details, level, grouped
 * categories, one Save; the preview for a customer's), read and written through `/policies/default…` for `owner`. A global default policy (an MSP's or the
 * system's) is a template: its name stays 'Default', and it applies to tenants created afterwards.
 */
export function DefaultPolicyPanels({ owner, template }: { owner: DefaultPolicyOwner; template: boolean }) {
  const { t } = useTranslation();
  const policy = useDefaultPolicyQuery(owner);
  const categories = useDefaultPolicyCategoriesQuery(owner);
  return (
    <>
      {template ? (
        <Text size="sm" c="dimmed" mb="sm">
          {t(owner.msp_id === undefined ? 'defaultPolicy.systemHelp' : 'defaultPolicy.mspHelp')}
        </Text>
      ) : null}
      <QueryState query={policy}>
        {(p) => (
          <QueryState query={categories}>
            {(list) => (
              <PolicyEditor
                key={p.id}
                policy={p}
                categories={list}
                owner={owner}
                templateName={template}
                // A customer's default policy is a real policy of that customer: its traffic can be previewed.
                preview={!template}
                aside={
                  template ? null : (
                    <Text size="sm" c="dimmed" mt="md">
                      {t('policies.locations')}: {p.locations.map((l) => l.name).join(', ') || '—'}
                    </Text>
                  )
                }
              />
            )}
          </QueryState>
        )}
      </QueryState>
    </>
  );
}

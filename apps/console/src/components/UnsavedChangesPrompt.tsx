import { useEffect } from 'react';
import { useTranslation } from 'react-i18next';
import { useBlocker } from 'react-router';
import { ConfirmDialog } from './ConfirmDialog.tsx';

/**
 * Asks before unsaved changes are lost (issue 11 "unsaved changes lost without a prompt"): leaving
 * the page inside the console while `when` is true opens a confirmation ("Leave" goes on, "Cancel"
 * stays), and closing or reloading the tab triggers the browser's own prompt.
 */
export function UnsavedChangesPrompt({ when }: { when: boolean }) {
  const { t } = useTranslation();
  const blocker = useBlocker(
    ({ currentLocation, nextLocation }) => when && currentLocation.pathname !== nextLocation.pathname,
  );
  useEffect(() => {
    if (!when) return;
    const onBeforeUnload = (event: BeforeUnloadEvent) => event.preventDefault();
    window.addEventListener('beforeunload', onBeforeUnload);
    return () => window.removeEventListener('beforeunload', onBeforeUnload);
  }, [when]);
  return (
    <ConfirmDialog
      opened={blocker.state === 'blocked'}
      onClose={() => blocker.reset?.()}
      title={t('unsaved.title')}
      text={t('unsaved.text')}
      confirmLabel={t('unsaved.leave')}
      loading={false}
      onConfirm={async () => blocker.proceed?.()}
    />
  );
}

import { useNotifications } from '@mantine/notifications';
import { lazy, Suspense, useState } from 'react';

const ToastContainer = lazy(() => import('./ToastContainer.tsx'));

/**
 * The toasts' container, fetched with the first toast (`notifications.show`, components/toast.ts)
 * and kept from then on: the container and its transitions (≈ 6 KB gzip) are not in the first load
 * (bench/README.md "Console first load"). A toast shown meanwhile waits in Mantine's notifications
 * store and appears, with its full `autoClose` delay, once the container is in.
 */
export function Toasts() {
  const { notifications, queue } = useNotifications();
  const [needed, setNeeded] = useState(false);
  // Set during render, the first time a toast exists (React's "adjusting state when a prop changes").
  if (!needed && notifications.length + queue.length > 0) setNeeded(true);
  return needed ? (
    <Suspense fallback={null}>
      <ToastContainer />
    </Suspense>
  ) : null;
}

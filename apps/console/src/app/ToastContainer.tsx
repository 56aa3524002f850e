import { Notifications } from '@mantine/notifications';

/**
 * Where the console's toasts show (spec-notes §8, §9: bottom right, at most three at once). Its own module
 * so that {@link Toasts} loads it with the first toast rather than in every first load.
 */
export default function ToastContainer() {
  return <Notifications position="bottom-right" limit={3} />;
}

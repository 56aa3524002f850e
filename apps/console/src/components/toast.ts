import { Constants } from '@cordon/shared';
import { notifications } from '@mantine/notifications';

/**
 * Shows an error toast that closes after the spec's 5000 ms (spec-notes §8, §9). The same text already on
 * screen is not shown a second time (its id is the text), so repeated failures do not pile up.
 */
export function showErrorToast(message: string): void {
  notifications.show({ id: `error:${message}`, color: 'red', message, autoClose: Constants.toastDurationMs });
}

/** Shows a success toast (same duration as error toasts; the same text is not stacked twice). */
export function showSuccessToast(message: string): void {
  notifications.show({ id: `success:${message}`, color: 'teal', message, autoClose: Constants.toastDurationMs });
}

import { Constants } from '@cordon/shared';
import { notifications } from '@mantine/notifications';

/** Shows an error toast that closes after the spec's 5000 ms (spec §8, §9). */
export function showErrorToast(message: string): void {
  notifications.show({ color: 'red', message, autoClose: Constants.toastDurationMs });
}

/** Shows a success toast (same duration as error toasts). */
export function showSuccessToast(message: string): void {
  notifications.show({ color: 'teal', message, autoClose: Constants.toastDurationMs });
}

import { ErrorTexts } from '@cordon/shared';
import { notifications } from '@mantine/notifications';
import type { ResponseOutcome } from '../../api/client.ts';
import { showErrorToast } from '../../components/toast.ts';
import type { SessionStore } from '../../session/session.ts';
import { decideReaction } from './responseReaction.ts';

const CONNECTION_ALERT_ID = 'connection-lost';

/** What the handler needs from the app: the current path, navigation and the session. */
export interface ResponseHandlerDeps {
  currentPath: () => string;
  navigate: (to: string) => void;
  session: SessionStore;
}

/**
 * Creates the global response handler of spec-notes §8: it decides with `decideReaction` and performs
 * the reaction (toast, logout, navigation, the persistent no-connection alert).
 */
export function createResponseHandler(deps: ResponseHandlerDeps): (outcome: ResponseOutcome) => void {
  let connectionAlertOpen = false;
  return (outcome) => {
    const reaction = decideReaction(outcome, deps.currentPath());
    switch (reaction.kind) {
      case 'none':
        return;
      case 'toast':
        showErrorToast(reaction.message);
        return;
      case 'logout':
        deps.session.clear();
        deps.navigate('/');
        return;
      case 'navigate':
        deps.navigate(reaction.to);
        return;
      case 'connectionLost':
        if (!connectionAlertOpen) {
          connectionAlertOpen = true;
          notifications.show({
            id: CONNECTION_ALERT_ID,
            color: 'red',
            message: ErrorTexts.connectionLost,
            autoClose: false,
            onClose: () => {
              connectionAlertOpen = false;
            },
          });
        }
        return;
      case 'connectionRestored':
        if (connectionAlertOpen) {
          connectionAlertOpen = false;
          notifications.hide(CONNECTION_ALERT_ID);
        }
        return;
    }
  };
}

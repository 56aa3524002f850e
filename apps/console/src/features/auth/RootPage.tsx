import { Navigate } from 'react-router';
import { useSession } from '../../session/context.ts';
import { rootDecision } from '../../session/routeGuard.ts';
import { LoginForm } from './LoginForm.tsx';

/** `/` (spec-notes §2): the login page when logged out, else the role's home. */
export function RootPage() {
  const decision = rootDecision(useSession());
  return decision.kind === 'login' ? <LoginForm /> : <Navigate to={decision.to} replace />;
}

import { type TokenClaims, tokenClaimsSchema } from '@cordon/shared';

/**
 * Browser-stored preferences and session keys, exactly the spec's (§3 "Browser-stored user
 * preferences"); the selected MSP and customer are stored separately under their own keys.
 */
export const StorageKeys = {
  lang: 'lang',
  timezone: 'timezone',
  ui: 'ui',
  token: 'token',
  role: 'role',
  twoFactorAuthEnabled: 'twoFactorAuthEnabled',
  selectedMsp: 'selectedMsp',
  selectedCustomer: 'selectedCustomer',
} as const;

/** Interface branding kept under `ui` (spec-notes §3): logo URL and product title, both optional. */
export interface UiPreferences {
  logo?: string;
  title?: string;
}

/** A snapshot of the session: the decoded claims (null when logged out) and the selections. */
export interface SessionState {
  token: string | null;
  claims: TokenClaims | null;
  selectedMsp: number | null;
  selectedCustomer: number | null;
  ui: UiPreferences;
}

/** A small external store over `Storage`, read by React through `useSyncExternalStore`. */
export interface SessionStore {
  getState(): SessionState;
  subscribe(listener: () => void): () => void;
  /** Stores a new access token and the claims the spec keeps beside it (`role`, `twoFactorAuthEnabled`). */
  login(token: string): TokenClaims;
  /** Clears local storage (spec-notes §8: the 401 reaction and logout). */
  clear(): void;
  selectMsp(id: number | null): void;
  selectCustomer(id: number | null): void;
  /** Stores the interface branding shown for the session (spec-notes §3 `ui {logo, title}`, from `/ui/interface`). */
  setUi(ui: UiPreferences): void;
}

/**
 * Decodes the payload of a JWT without verifying it (the API verifies; the console only reads
 * claims) and checks it against `tokenClaimsSchema`. Returns null for anything malformed.
 */
export function decodeTokenClaims(token: string): TokenClaims | null {
  const part = token.split('.')[1];
  if (!part) return null;
  try {
    const b64 = part.replace(/-/g, '+').replace(/_/g, '/');
    const padded = b64 + '='.repeat((4 - (b64.length % 4)) % 4);
    const bytes = Uint8Array.from(atob(padded), (c) => c.charCodeAt(0));
    const json: unknown = JSON.parse(new TextDecoder().decode(bytes));
    const parsed = tokenClaimsSchema.safeParse(json);
    return parsed.success ? parsed.data : null;
  } catch {
    return null;
  }
}

function readId(storage: Storage, key: string): number | null {
  const raw = storage.getItem(key);
  const id = raw === null ? Number.NaN : Number(raw);
  return Number.isInteger(id) && id > 0 ? id : null;
}

function readUi(storage: Storage): UiPreferences {
  try {
    const raw = storage.getItem(StorageKeys.ui);
    const value: unknown = raw ? JSON.parse(raw) : {};
    if (value && typeof value === 'object') {
      const { logo, title } = value as Record<string, unknown>;
      return {
        ...(typeof logo === 'string' ? { logo } : {}),
        ...(typeof title === 'string' ? { title } : {}),
      };
    }
  } catch {
    // fall through to defaults
  }
  return {};
}

function readState(storage: Storage): SessionState {
  const token = storage.getItem(StorageKeys.token);
  const claims = token ? decodeTokenClaims(token) : null;
  const expired = claims !== null && claims.exp * 1000 <= Date.now();
  return {
    token: claims && !expired ? token : null,
    claims: expired ? null : claims,
    selectedMsp: readId(storage, StorageKeys.selectedMsp),
    selectedCustomer: readId(storage, StorageKeys.selectedCustomer),
    ui: readUi(storage),
  };
}

/** Creates the session store over the given storage (window.localStorage in the app). */
export function createSessionStore(storage: Storage): SessionStore {
  let state = readState(storage);
  const listeners = new Set<() => void>();
  const refresh = () => {
    state = readState(storage);
    for (const l of listeners) l();
  };
  const setId = (key: string, id: number | null) => {
    if (id === null) storage.removeItem(key);
    else storage.setItem(key, String(id));
    refresh();
  };
  return {
    getState: () => state,
    subscribe(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    login(token) {
      const claims = decodeTokenClaims(token);
      if (!claims) throw new Error('The access token is not valid.');
      storage.setItem(StorageKeys.token, token);
      storage.setItem(StorageKeys.role, String(claims.vue_role));
      storage.setItem(StorageKeys.twoFactorAuthEnabled, String(claims['2fa_enabled']));
      storage.removeItem(StorageKeys.selectedMsp);
      storage.removeItem(StorageKeys.selectedCustomer);
      refresh();
      return claims;
    },
    clear() {
      storage.clear();
      refresh();
    },
    selectMsp(id) {
      setId(StorageKeys.selectedMsp, id);
    },
    selectCustomer(id) {
      setId(StorageKeys.selectedCustomer, id);
    },
    setUi(ui) {
      const next = JSON.stringify({ ...(ui.logo ? { logo: ui.logo } : {}), ...(ui.title ? { title: ui.title } : {}) });
      if (storage.getItem(StorageKeys.ui) === next) return;
      storage.setItem(StorageKeys.ui, next);
      refresh();
    },
  };
}

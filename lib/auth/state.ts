// No `server-only`: the proxy loads this module (through lib/auth/config.ts and lib/auth/gate.ts).
import { layerState } from "../core/process-state";
import { LoginThrottle } from "./login-throttle";
import type { SessionKeys } from "./session";

/** Sign-in's process-wide values (lib/core/process-state.ts says why they live on globalThis). */
export interface AuthState {
  /**
   * The session signing keys, derived from the passwords and the salt in DATA_DIR by
   * lib/auth/config.ts on first use (null until then): the proxy and the pages sign and verify
   * with the same keys, and deriving them reads (or creates) the salt file.
   */
  sessionKeys: SessionKeys | null;
  /**
   * Each client's failed sign-ins and the wait they earned, counted by the login action
   * (lib/actions/auth.ts): a client's failures must count against its next attempts.
   */
  loginThrottle: LoginThrottle;
  /**
   * Whether the warning that a proxy forwards requests while TRUST_PROXY is off was logged
   * (lib/auth/gate.ts): it is logged once per process, whichever bundle sees the first forwarded request.
   */
  untrustedProxyWarned: boolean;
}

function createAuthState(): AuthState {
  return { sessionKeys: null, loginThrottle: new LoginThrottle(), untrustedProxyWarned: false };
}

/** Sign-in's values, made on first use in this process. */
export const authState = () => layerState("auth", createAuthState);

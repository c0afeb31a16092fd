// What the launcher says at start about access (plain ESM, as scripts/start.mjs loads it): with
// sign-in off the app answers only this machine, which a proxy deployment must know before it
// finds out from a refused request.

/**
 * The warning for this configuration, or null when there is nothing to say.
 * @param {{ ADMIN_PASSWORD?: string; ALLOWED_HOSTS?: string; TRUST_PROXY?: boolean }} env
 */
export function openAccessWarning(env) {
  if (env.ADMIN_PASSWORD) return null;
  const lines = [
    "Sign-in is off (ADMIN_PASSWORD is not set): everyone who reaches the app is an editor, so it answers only requests",
    "made on this machine and addressed to it (localhost, 127.0.0.1, [::1]); a request that came through a proxy or names",
    "another host is refused. To serve it through a reverse proxy: set ADMIN_PASSWORD, put the public name in ALLOWED_HOSTS,",
    "and set TRUST_PROXY=1 if the proxy sets X-Forwarded-For (docs/deploying.md).",
  ];
  if (env.ALLOWED_HOSTS?.trim())
    lines.push(`ALLOWED_HOSTS=${env.ALLOWED_HOSTS.trim()} is refused while sign-in is off: those names need ADMIN_PASSWORD.`);
  if (env.TRUST_PROXY) lines.push("TRUST_PROXY=1 has no effect while sign-in is off: proxied requests are refused.");
  return lines.join("\n");
}

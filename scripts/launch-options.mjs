// What the launcher decides from the configuration before it starts anything.

/** True for the names of this machine only: 127.x.x.x, ::1 and localhost. */
export function isLoopbackHost(host) {
  const h = host
    .trim()
    .toLowerCase()
    .replace(/^\[(.*)\]$/, "$1");
  return h === "localhost" || h === "::1" || /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(h);
}

/** Why the app must not start with this configuration, or null when it may. */
export function accessRefusal(env) {
  if (isLoopbackHost(env.HOST) || env.ADMIN_PASSWORD) return null;
  return [
    `Refusing to start: HOST=${env.HOST} makes the app reachable from other machines, and ADMIN_PASSWORD is not set,`,
    "so anyone who can reach it could read, change and delete the knowledge base.",
    "Set ADMIN_PASSWORD (at least 8 characters) to require sign-in, or leave HOST unset to listen on 127.0.0.1 only.",
  ].join("\n");
}

/** Arguments of `next start` / `next dev`: the port and the address to bind. */
export function nextArgs({ dev, port, host }) {
  return [dev ? "dev" : "start", "-p", String(port), "-H", host];
}

/** The URL this machine reaches the app at (for the demo seeding), whatever HOST binds. */
export function localUrl({ host, port }) {
  const h = host.replace(/^\[(.*)\]$/, "$1");
  if (h === "0.0.0.0") return `http://127.0.0.1:${port}`;
  if (h === "::") return `http://[::1]:${port}`;
  return h.includes(":") ? `http://[${h}]:${port}` : `http://${h}:${port}`;
}

// Stamps each request, as the HTTP server receives it, with the address of its socket and the
// forwarding headers it arrived with (lib/auth/peer.ts reads the stamp). Plain ESM so that the
// launcher can load it before Next starts (`node --import scripts/stamp-peers.mjs`): a request
// then never reaches the app unstamped. instrumentation.ts installs it too, for a server started
// another way (`next start`), which stamps from its first handled request on.
import { randomBytes } from "node:crypto";
import http from "node:http";
import https from "node:https";

export const PEER_HEADER = "x-kb-peer";
/** Headers by which a proxy says whom it forwards for; a client can set any of them itself. */
export const FORWARDING_HEADERS = /** @type {const} */ (["x-forwarded-for", "forwarded", "x-real-ip"]);

// Process-wide, on globalThis itself: plain Node cannot import lib/core/process-state.ts, which
// names these two as its exception.
/** @type {{ __kbPeerKey?: string; __kbPeerStamped?: boolean }} */
const holder = /** @type {any} */ (globalThis);

/** The key of this process's stamps (made on first use, shared by every bundle through globalThis). */
export const peerKey = () => (holder.__kbPeerKey ??= randomBytes(16).toString("hex"));

/** IPv4-mapped IPv6 (`::ffff:127.0.0.1`) written as IPv4. */
export const plainAddress = (/** @type {string} */ address) => (/^::ffff:\d+\.\d+\.\d+\.\d+$/i.test(address) ? address.slice(7) : address);

/**
 * The stamp's value for a peer; a client cannot make one, as it does not know the key.
 * @param {{ address: string; forwarded: string[] }} peer
 */
export const peerStamp = (peer) => `${peerKey()} ${plainAddress(peer.address) || "-"} ${peer.forwarded.join(",")}`.trimEnd();

/**
 * Stamps a request as it arrives, replacing any stamp the client sent.
 * @param {import("node:http").IncomingMessage} req
 */
export function stampPeer(req) {
  const forwarded = FORWARDING_HEADERS.filter((name) => req.headers[name] !== undefined);
  req.headers[PEER_HEADER] = peerStamp({ address: req.socket?.remoteAddress ?? "", forwarded });
}

/** Stamps every request every HTTP server of this process receives, before any listener sees it. */
export function installPeerStamp() {
  if (holder.__kbPeerStamped) return;
  holder.__kbPeerStamped = true;
  for (const Server of [http.Server, https.Server]) {
    const emit = Server.prototype.emit;
    /** @this {import("node:http").Server} @param {string | symbol} event @param {unknown[]} args */
    Server.prototype.emit = function (event, ...args) {
      if (event === "request") stampPeer(/** @type {import("node:http").IncomingMessage} */ (args[0]));
      return emit.call(this, event, ...args);
    };
  }
}

// Who is on the other end of the connection. Next hands route handlers, server actions and
// the proxy a Request without its socket, and copies any X-Forwarded-For a client sends, so
// the address a client claims and the one it connects from look alike there. Each request is
// therefore stamped as the HTTP server receives it (installPeerStamp, from instrumentation.ts)
// with the socket's address and the forwarding headers it arrived with; the stamp carries a
// key made in this process, so a client cannot send one of its own.
import { randomBytes } from "node:crypto";
import http, { type IncomingMessage } from "node:http";
import https from "node:https";
import { isIP } from "node:net";

export const PEER_HEADER = "x-kb-peer";
/** Headers by which a proxy says whom it forwards for; a client can set any of them itself. */
export const FORWARDING_HEADERS = ["x-forwarded-for", "forwarded", "x-real-ip"] as const;

export interface Peer {
  /** The socket's remote address (IPv4-mapped IPv6 written as IPv4). */
  address: string;
  /** The forwarding headers the request arrived with. */
  forwarded: string[];
}

const holder = globalThis as unknown as { __kbPeerKey?: string; __kbPeerStamped?: boolean };
/** The key of this process's stamps (made on first use, shared by every bundle through globalThis). */
const peerKey = () => (holder.__kbPeerKey ??= randomBytes(16).toString("hex"));

const plainAddress = (address: string) => (/^::ffff:\d+\.\d+\.\d+\.\d+$/i.test(address) ? address.slice(7) : address);

/** The stamp's value for a peer: what `peerOf` reads back. */
export const peerStamp = (peer: Peer) => `${peerKey()} ${plainAddress(peer.address) || "-"} ${peer.forwarded.join(",")}`.trimEnd();

/** Stamps a request as it arrives, replacing any stamp the client sent. */
export function stampPeer(req: IncomingMessage): void {
  const forwarded = FORWARDING_HEADERS.filter((name) => req.headers[name] !== undefined);
  req.headers[PEER_HEADER] = peerStamp({ address: req.socket?.remoteAddress ?? "", forwarded: [...forwarded] });
}

/** Stamps every request every HTTP server of this process receives, before any listener sees it. */
export function installPeerStamp(): void {
  if (holder.__kbPeerStamped) return;
  holder.__kbPeerStamped = true;
  for (const Server of [http.Server, https.Server]) {
    const emit = Server.prototype.emit as (this: http.Server, event: string | symbol, ...args: unknown[]) => boolean;
    Server.prototype.emit = function (this: http.Server, event: string | symbol, ...args: unknown[]) {
      if (event === "request") stampPeer(args[0] as IncomingMessage);
      return emit.call(this, event, ...args);
    } as typeof Server.prototype.emit;
  }
}

/** The peer a request was stamped with; null when it carries no stamp of this process. */
export function peerOf(headers: Headers): Peer | null {
  const value = headers.get(PEER_HEADER);
  if (!value) return null;
  const [key, address, forwarded] = value.split(" ");
  if (key !== peerKey() || !address) return null;
  return { address: address === "-" ? "" : address, forwarded: forwarded ? forwarded.split(",") : [] };
}

/** 127.0.0.0/8 and ::1. */
export function isLoopbackAddress(address: string): boolean {
  const a = plainAddress(address);
  if (isIP(a) === 4) return a.startsWith("127.");
  return a === "::1";
}

/**
 * The address sign-in attempts are counted under. Without a trusted proxy it is the socket's:
 * a client cannot pick it. Behind one (TRUST_PROXY) it is the last X-Forwarded-For entry, the
 * one that proxy wrote. An IPv6 client counts by its /64, which one machine usually holds whole.
 */
export function clientAddress(headers: Headers, trustProxy: boolean): string {
  const peer = peerOf(headers);
  const forwardedFor = trustProxy ? headers.get("x-forwarded-for")?.split(",").at(-1)?.trim() : undefined;
  const address = plainAddress(forwardedFor || peer?.address || "");
  if (!address) return "unknown";
  if (isIP(address) !== 6) return address;
  const groups = expandIpv6(address);
  return groups ? `${groups.slice(0, 4).join(":")}::/64` : address;
}

/** The eight groups of an IPv6 address, or null when it is not one. */
function expandIpv6(address: string): string[] | null {
  const [head, tail] = address.split("::");
  const part = (s: string | undefined) => (s ? s.split(":") : []);
  const h = part(head);
  const t = part(tail);
  const groups = tail === undefined ? h : [...h, ...Array(8 - h.length - t.length).fill("0"), ...t];
  return groups.length === 8 ? groups.map((g) => g.toLowerCase().replace(/^0+(?=.)/, "")) : null;
}

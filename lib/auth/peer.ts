// Who is on the other end of the connection. Next hands route handlers, server actions and
// the proxy a Request without its socket, and copies any X-Forwarded-For a client sends, so
// the address a client claims and the one it connects from look alike there. Each request is
// therefore stamped as the HTTP server receives it (lib/auth/peer-stamp.mjs) with the socket's
// address and the forwarding headers it arrived with; the stamp carries a key made in this
// process, so a client cannot send one of its own.
import { isIP } from "node:net";
import { PEER_HEADER, peerKey, plainAddress } from "./peer-stamp.mjs";

export { FORWARDING_HEADERS, installPeerStamp, PEER_HEADER, peerStamp, stampPeer } from "./peer-stamp.mjs";

export interface Peer {
  /** The socket's remote address (IPv4-mapped IPv6 written as IPv4). */
  address: string;
  /** The forwarding headers the request arrived with. */
  forwarded: string[];
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
 * one that proxy wrote. An IPv6 client counts by its /56: a home or small office is handed a
 * /56 or a /48 (RIPE-690), so a /64 key would give one holder 256 to 65,536 fresh counts.
 */
export function clientAddress(headers: Headers, trustProxy: boolean): string {
  const peer = peerOf(headers);
  const forwardedFor = trustProxy ? headers.get("x-forwarded-for")?.split(",").at(-1)?.trim() : undefined;
  const address = plainAddress(forwardedFor || peer?.address || "");
  if (!address) return "unknown";
  if (isIP(address) !== 6) return address;
  const groups = expandIpv6(address);
  if (!groups) return address;
  const fourth = (parseInt(groups[3], 16) & 0xff00).toString(16);
  return `${groups.slice(0, 3).join(":")}:${fourth}::/56`;
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

import { PEER_HEADER, peerStamp } from "../lib/auth/peer";

/** The stamp the HTTP server puts on a request from this machine (lib/auth/peer.ts). */
export const LOCAL_PEER = { [PEER_HEADER]: peerStamp({ address: "127.0.0.1", forwarded: [] }) };

/** Calls a route handler the way Next does: a Request (stamped as from this machine) and a params promise. */
export async function call<P extends Record<string, string>>(
  handler: (req: Request, ctx: { params: Promise<P> }) => Promise<Response>,
  opts: { method?: string; json?: unknown; body?: BodyInit; headers?: Record<string, string>; params?: Partial<P>; url?: string } = {},
) {
  const headers = { ...LOCAL_PEER, ...(opts.json !== undefined ? { "content-type": "application/json" } : {}), ...opts.headers };
  const req = new Request(`http://localhost/test${opts.url ?? ""}`, {
    method: opts.method ?? "POST",
    headers,
    body: opts.json !== undefined ? JSON.stringify(opts.json) : opts.body,
  });
  const res = await handler(req, { params: Promise.resolve((opts.params ?? {}) as P) });
  const text = await res.text();
  return { status: res.status, body: text ? JSON.parse(text) : null };
}

export function filesForm(files: [string, string | Uint8Array][], fields: Record<string, string> = {}) {
  const form = new FormData();
  for (const [name, content] of files) form.append("files", new Blob([content as BlobPart]), name);
  for (const [k, v] of Object.entries(fields)) form.append(k, v);
  return form;
}

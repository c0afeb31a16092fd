import "server-only";
import type { IncomingMessage, ServerResponse } from "node:http";
import { errorResponse, toErrorResponse } from "./route";

type WebHandler<C> = (req: Request, ctx: C) => Promise<Response>;

export interface NodeHandlerOptions {
  /** The largest request body read; past it the answer is 413 request_too_large. */
  maxBodyBytes: number;
}

const kilobytes = (n: number) => `${Math.round(n / 1024)} KB`;

/** The body, or null once it passed `limit` (the rest is drained, not kept, so the answer reaches the client). */
async function readLimited(req: IncomingMessage, limit: number): Promise<Buffer | null> {
  const chunks: Buffer[] = [];
  let total = 0;
  for await (const chunk of req as AsyncIterable<Buffer>) {
    total += chunk.byteLength;
    if (total <= limit) chunks.push(chunk);
  }
  return total > limit ? null : Buffer.concat(chunks, total);
}

function headersOf(req: IncomingMessage): Headers {
  const headers = new Headers();
  for (const [name, value] of Object.entries(req.headers)) {
    if (value === undefined) continue;
    if (Array.isArray(value)) for (const v of value) headers.append(name, v);
    else headers.set(name, value);
  }
  return headers;
}

async function send(res: ServerResponse, answer: Response): Promise<void> {
  const body = Buffer.from(await answer.arrayBuffer());
  res.statusCode = answer.status;
  const cookies = answer.headers.getSetCookie();
  answer.headers.forEach((value, name) => {
    if (name !== "set-cookie") res.setHeader(name, value);
  });
  if (cookies.length > 0) res.setHeader("set-cookie", cookies);
  res.setHeader("content-length", body.byteLength);
  res.end(body);
}

/**
 * Serves web-standard route handlers (the same functions, Request in, Response out, that
 * app/api route.ts files export) from a Next pages API route, which answers in a fraction of an
 * app route handler's time (measured in docs/performance.md, 'The search endpoint is cheap to
 * reach'). The agent's search is the one endpoint where that difference is a large share of the
 * answer time, so it is served this way. The handler sees the same request (method, URL,
 * headers, body) and its response goes out unchanged; `params` come from Next's `req.query`,
 * where the route's dynamic segments take precedence over query-string fields of the same name.
 */
export function serveFromNode<C extends { params: Promise<Record<string, string>> }>(
  handlers: Partial<Record<"GET" | "POST" | "PUT" | "PATCH" | "DELETE", WebHandler<C>>>,
  options: NodeHandlerOptions,
) {
  const allowed = Object.keys(handlers).join(", ");
  return async (req: IncomingMessage & { query?: Record<string, string | string[] | undefined> }, res: ServerResponse): Promise<void> => {
    try {
      const handler = handlers[(req.method ?? "GET").toUpperCase() as keyof typeof handlers];
      if (!handler) {
        req.resume();
        res.setHeader("allow", allowed);
        res.statusCode = 405;
        res.end();
        return;
      }
      const hasBody = req.method !== "GET" && req.method !== "HEAD";
      const body = hasBody ? await readLimited(req, options.maxBodyBytes) : null;
      if (hasBody && body === null) {
        await send(
          res,
          errorResponse(
            "request_too_large",
            `The request body is larger than ${kilobytes(options.maxBodyBytes)}, the most this endpoint reads.`,
          ),
        );
        return;
      }
      const host = req.headers.host ?? "localhost";
      const request = new Request(new URL(req.url ?? "/", `http://${host}`), {
        method: req.method,
        headers: headersOf(req),
        body: body ? (body.buffer.slice(body.byteOffset, body.byteOffset + body.byteLength) as ArrayBuffer) : undefined,
      });
      const params: Record<string, string> = {};
      for (const [k, v] of Object.entries(req.query ?? {})) if (typeof v === "string") params[k] = v;
      await send(res, await handler(request, { params: Promise.resolve(params) } as C));
    } catch (err) {
      if (res.headersSent) {
        res.destroy(err instanceof Error ? err : undefined);
        return;
      }
      await send(res, toErrorResponse(err));
    }
  };
}

import "server-only";
import { NextResponse } from "next/server";
import { z } from "zod";
import { gateRequest, handlerRoleRefusal, type Access } from "../auth/gate";
import { getAgent, type Agent } from "../db/agents";
import { AgentView } from "../db/agent-view";
import { getDraft } from "../db/drafts";
import { AppError, describeFailure, ERROR_STATUS, failureCode, type ErrorCode } from "../core/errors";

/** The API's error shape, with the status the code maps to. */
export function errorResponse(code: ErrorCode, message: string) {
  return NextResponse.json({ error: { code, message } }, { status: ERROR_STATUS[code] });
}

const zodMessage = (err: z.ZodError) => err.issues.map((i) => (i.path.length ? `${i.path.join(".")}: ${i.message}` : i.message)).join("; ");

// The server log's line for a failure that is not the app's own refusal, by its code.
const LOGGED_AS: Partial<Record<ErrorCode, string>> = {
  embedding_failed: "embedding failed:",
  vector_store_unavailable: "vector store unavailable:",
  internal: "unexpected error:",
};

/** Maps any error to the API's error shape; internal details stay in the server log. */
export function toErrorResponse(err: unknown) {
  if (err instanceof z.ZodError) return errorResponse("invalid_request", zodMessage(err));
  const code = failureCode(err);
  const logged = err instanceof AppError ? undefined : LOGGED_AS[code];
  if (logged) console.error(logged, err);
  return errorResponse(code, describeFailure(err));
}

/**
 * Wraps a route handler: checks the role it declares (`access`; sign-in off, everyone is an
 * editor) before it runs, and turns every thrown error into a JSON error response.
 */
export function route<C>(access: Access, handler: (req: Request, ctx: C) => Promise<Response>) {
  return async (req: Request, ctx: C): Promise<Response> => {
    try {
      return (await handlerRoleRefusal(req, access)) ?? (await handler(req, ctx));
    } catch (err) {
      return toErrorResponse(err);
    }
  };
}

/**
 * route() for the handlers the proxy leaves out (uploads: Next would buffer their bodies for
 * it): all of the proxy's checks run first, with the declared role, before a byte of the body is read.
 */
export function gatedRoute<C>(access: Access, handler: (req: Request, ctx: C) => Promise<Response>) {
  const inner = route("public", handler);
  return async (req: Request, ctx: C): Promise<Response> => (await gateRequest(req, access)) ?? inner(req, ctx);
}

/** The `[name]` segments of a route path. */
type SegmentNames<R extends string> = R extends `${string}[${infer Name}]${infer Rest}` ? Name | SegmentNames<Rest> : never;

/**
 * A route handler's context for a route path, as Next's generated `RouteContext<'/api/...'>`
 * types it; that one exists only after `next typegen`, `next dev` or `next build`, and the
 * type check runs without them.
 */
export type RouteCtx<R extends string> = { params: Promise<{ [K in SegmentNames<R>]: string }> };

type AgentCtx = { params: Promise<{ id: string }> };

/** What a handler under /api/agents/[id] gets: the request, the agent, and the route's params. */
export interface AgentRequest<C extends AgentCtx> {
  req: Request;
  agent: Agent;
  /** The request's view of the agent (lib/db/agent-view.ts), to pass down to retrieval and ingest. */
  view: AgentView;
  params: Awaited<C["params"]>;
}

/**
 * route() for the handlers that act on one agent: checks the declared role, then parses `[id]`
 * and loads the agent (404 not_found for a malformed or unknown id) before the handler runs.
 * `gated` runs all of the proxy's checks first, for the routes the proxy leaves out (see gatedRoute).
 */
export function withAgent<C extends AgentCtx>(
  access: Access,
  handler: (args: AgentRequest<C>) => Promise<Response>,
  options: { gated?: boolean } = {},
): (req: Request, ctx: C) => Promise<Response> {
  const inner = async (req: Request, ctx: C) => {
    const params = (await ctx.params) as Awaited<C["params"]>;
    const agent = getAgent(parseId(params.id, "Agent"));
    return handler({ req, agent, view: AgentView.of(agent), params });
  };
  return options.gated ? gatedRoute(access, inner) : route(access, inner);
}

export function parseId(raw: string, what = "id"): number {
  const n = Number(raw);
  if (!/^\d+$/.test(raw) || !Number.isSafeInteger(n) || n < 1) {
    throw new AppError("not_found", `${what} "${raw}" was not found.`);
  }
  return n;
}

/** The request's JSON body; with `optional`, an empty body reads as `{}`. */
export async function readJson(req: Request, { optional = false } = {}): Promise<unknown> {
  try {
    if (!optional) return await req.json();
    const text = await req.text();
    return text.trim() ? JSON.parse(text) : {};
  } catch {
    throw new AppError("invalid_json", "The request body must be valid JSON.");
  }
}

/** Who made a change, for the logs that keep who did what: an API token or a browser (there are no user names). */
export function actorOf(req: Request): string {
  return bearerOf(req) ? "API token" : "browser";
}
const bearerOf = (req: Request) => /^Bearer\s+\S+/i.test(req.headers.get("authorization") ?? "");

/** parseId for a chunk id (lib/db/chunks.ts ownChunkId), which may be 0. */
export function parseChunkId(raw: string): number {
  const n = Number(raw);
  if (!/^\d+$/.test(raw) || !Number.isSafeInteger(n)) throw new AppError("not_found", `Chunk "${raw}" was not found.`);
  return n;
}

/** The draft a request names with `?draft=` (lib/db/drafts.ts): 404 for a draft of another agent or none; undefined without one. */
export function requestDraft(req: Request, agentId: number): number | undefined {
  const raw = new URL(req.url).searchParams.get("draft");
  if (raw === null) return undefined;
  return getDraft(agentId, parseId(raw, "Draft")).id;
}

import "server-only";
import { NextResponse } from "next/server";
import { z } from "zod";
import { gateRequest } from "../auth/gate";
import { isVectorStoreUnavailable } from "../vector-store/client";
import { AppError, vectorStoreUnavailable } from "./errors";
import { EmbeddingError } from "../embeddings";
import { RejectedFileError, SIZE_LIMIT_CODES } from "../extract";

export function errorResponse(status: number, code: string, message: string) {
  return NextResponse.json({ error: { code, message } }, { status });
}

const zodMessage = (err: z.ZodError) =>
  err.issues.map((i) => (i.path.length ? `${i.path.join(".")}: ${i.message}` : i.message)).join("; ");

/** Maps any error to the API's error shape; internal details stay in the server log. */
export function toErrorResponse(err: unknown) {
  if (err instanceof AppError) return errorResponse(err.status, err.code, err.message);
  if (err instanceof z.ZodError) return errorResponse(422, "invalid_request", zodMessage(err));
  if (err instanceof RejectedFileError) {
    return errorResponse(SIZE_LIMIT_CODES.includes(err.code) ? 413 : 422, `rejected_${err.code}`, err.message);
  }
  if (err instanceof EmbeddingError) {
    console.error("embedding failed:", err);
    return errorResponse(500, "embedding_failed", `The embedding provider failed: ${err.message}`);
  }
  if (isVectorStoreUnavailable(err)) {
    console.error("vector store unavailable:", err);
    const e = vectorStoreUnavailable();
    return errorResponse(e.status, e.code, e.message);
  }
  console.error("unexpected error:", err);
  return errorResponse(500, "internal", "Something went wrong on the server; the details are in its log.");
}

/** Wraps a route handler so every thrown error becomes a JSON error response. */
export function route<C>(handler: (req: Request, ctx: C) => Promise<Response>) {
  return async (req: Request, ctx: C): Promise<Response> => {
    try {
      return await handler(req, ctx);
    } catch (err) {
      return toErrorResponse(err);
    }
  };
}

/**
 * route() for the handlers the proxy leaves out (uploads: Next would buffer their bodies for
 * it): the same access checks run first, before a byte of the body is read.
 */
export function gatedRoute<C>(handler: (req: Request, ctx: C) => Promise<Response>) {
  const inner = route(handler);
  return async (req: Request, ctx: C): Promise<Response> => (await gateRequest(req)) ?? inner(req, ctx);
}

export function parseId(raw: string, what = "id"): number {
  const n = Number(raw);
  if (!/^\d+$/.test(raw) || !Number.isSafeInteger(n) || n < 1) {
    throw new AppError(404, "not_found", `${what} "${raw}" was not found.`);
  }
  return n;
}

export async function readJson(req: Request): Promise<unknown> {
  try {
    return await req.json();
  } catch {
    throw new AppError(400, "invalid_json", "The request body must be valid JSON.");
  }
}

import "server-only";
import { env, parseEnv } from "../env.mjs";
import { redactSecrets } from "../core/redact";
import { shownUrl } from "../embeddings/openai/errors";
import { RerankError } from "./errors";
import type { Reranker } from "./types";

/**
 * The `http` reranker: a reranking endpoint (`POST {RERANK_BASE_URL}/rerank`) that scores every
 * candidate against the query in one request, in Cohere's shape (Jina's is the same) or
 * text-embeddings-inference's (RERANK_PROTOCOL).
 */

type RerankEnv = Pick<
  ReturnType<typeof parseEnv>,
  "RERANK_BASE_URL" | "RERANK_API_KEY" | "RERANK_MODEL" | "RERANK_PROTOCOL" | "RERANK_TIMEOUT_MS"
>;

const decoded = (part: string) => {
  try {
    return decodeURIComponent(part);
  } catch {
    return part;
  }
};

const seconds = (ms: number) => `${Number((ms / 1000).toFixed(1))} s`;

/** The endpoint's scores by candidate index, from either answer shape; null unless every candidate has exactly one. */
function scoresOf(answer: unknown, count: number): number[] | null {
  const items = Array.isArray(answer) ? answer : (answer as { results?: unknown } | null)?.results;
  if (!Array.isArray(items) || items.length !== count) return null;
  const scores = new Array<number | undefined>(count);
  for (const item of items as { index?: unknown; relevance_score?: unknown; score?: unknown }[]) {
    const index = item?.index;
    const score = item?.relevance_score ?? item?.score;
    if (typeof index !== "number" || !Number.isInteger(index) || index < 0 || index >= count || scores[index] !== undefined) return null;
    if (typeof score !== "number" || !Number.isFinite(score)) return null;
    scores[index] = score;
  }
  return scores as number[];
}

/** The reranker RERANK_BASE_URL configures (`config` stands in for the process's variables); null when it is unset. */
export function httpReranker(config: RerankEnv = env()): Reranker | null {
  const { RERANK_BASE_URL: base, RERANK_API_KEY: apiKey, RERANK_MODEL: model, RERANK_PROTOCOL: protocol } = config;
  const timeoutMs = config.RERANK_TIMEOUT_MS;
  if (!base) return null;
  const endpoint = new URL(base);
  endpoint.pathname = `${endpoint.pathname.replace(/\/+$/, "")}/rerank`;
  // fetch refuses a URL with credentials: they travel as Basic auth instead, unless a key is set.
  const user = decoded(endpoint.username);
  const password = decoded(endpoint.password);
  endpoint.username = endpoint.password = "";
  const authorization = apiKey
    ? `Bearer ${apiKey}`
    : user || password
      ? `Basic ${Buffer.from(`${user}:${password}`).toString("base64")}`
      : undefined;
  // Users read this: the endpoint without the user, password or query RERANK_BASE_URL may carry.
  const shown = shownUrl(endpoint.href) ?? "RERANK_BASE_URL";
  const name = `The reranker ${model ? `${model} ` : ""}at ${shown}`;

  // The provider's own text stays in the server log: it can quote the request, or a key.
  const failed = (what: string, detail: unknown): never => {
    const text = detail instanceof Error ? `${detail.message}${detail.cause ? ` (${String(detail.cause)})` : ""}` : String(detail);
    console.error(`[kb-inspector] reranker at ${shown} ${what}:`, redactSecrets(text, [apiKey, password]).slice(0, 2000));
    throw new RerankError(`${name} ${what}; the details are in the server log.`);
  };

  /** POSTs `body` and reads the whole answer within the deadline. */
  const post = async (body: unknown): Promise<{ status: number; ok: boolean; text: string }> => {
    // A timer of our own ends the call whatever fetch does with its signal: a signal alone was seen
    // not to fire under load (lib/vector-store/fetch.ts). The abort still drops the connection.
    const controller = new AbortController();
    let timer: NodeJS.Timeout | undefined;
    const expired = new Promise<never>((_, reject) => {
      timer = setTimeout(() => {
        const err = new DOMException(`no answer within ${timeoutMs} ms`, "TimeoutError");
        controller.abort(err);
        reject(err);
      }, timeoutMs);
    });
    expired.catch(() => {}); // settled by the race below, or never looked at once the call answered
    try {
      const res = await Promise.race([
        fetch(endpoint, {
          method: "POST",
          headers: { "content-type": "application/json", accept: "application/json", ...(authorization ? { authorization } : {}) },
          body: JSON.stringify(body),
          signal: controller.signal,
        }),
        expired,
      ]);
      return { status: res.status, ok: res.ok, text: await Promise.race([res.text(), expired]) };
    } catch (err) {
      return controller.signal.aborted ? failed(`did not answer within ${seconds(timeoutMs)}`, err) : failed("could not be reached", err);
    } finally {
      clearTimeout(timer);
    }
  };

  return {
    name: "http",
    version: `http ${model ?? "default"} at ${shown}`,
    async score(query, _queryVector, pool) {
      if (pool.length === 0) return [];
      const texts = pool.map((c) => c.text);
      const body =
        protocol === "tei"
          ? { query, texts, raw_scores: false }
          : { ...(model ? { model } : {}), query, documents: texts, top_n: texts.length };
      const res = await post(body);
      if (!res.ok) return failed(`answered ${res.status}`, res.text);
      let answer: unknown;
      try {
        answer = JSON.parse(res.text);
      } catch {
        answer = undefined;
      }
      const scores = scoresOf(answer, pool.length);
      if (!scores) return failed("answered with a body that is not one score per candidate", res.text);
      return scores.map((score) => ({ score }));
    },
  };
}

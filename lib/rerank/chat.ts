import "server-only";
import type OpenAI from "openai";
import { env } from "../env.mjs";
import { chatClient } from "../embeddings/openai/chat-client";
import { redactSecrets } from "../core/redact";
import { shownUrl } from "../embeddings/openai/errors";
import { RerankError } from "./errors";
import type { Reranker } from "./types";

/**
 * The `chat` reranker: the chat model (OPENAI_CHAT_MODEL) scores the pool's first
 * RERANK_CHAT_MAX_CANDIDATES candidates 0..10 against the query, each cut to RERANK_CHAT_MAX_CHARS,
 * in one call per query; the candidates past that bound keep their pool order below them.
 */

const SYSTEM =
  "You rank retrieved passages for a search engine. Score each numbered passage by how well it answers the query: " +
  "10 answers it fully, 5 is on its topic without answering it, 0 has nothing to do with it. Reply with JSON only.";

const responseFormat = (count: number): OpenAI.ChatCompletionCreateParams["response_format"] => ({
  type: "json_schema",
  json_schema: {
    name: "relevance_scores",
    strict: true,
    schema: {
      type: "object",
      properties: {
        scores: {
          type: "array",
          items: { type: "integer", minimum: 0, maximum: 10 },
          minItems: count,
          maxItems: count,
          description: "One score per passage, in order.",
        },
      },
      required: ["scores"],
      additionalProperties: false,
    },
  },
});

/** `text` cut to `max` characters, without leaving half of a surrogate pair at the end. */
function cut(text: string, max: number): string {
  const head = text.slice(0, max);
  return /[\uD800-\uDBFF]$/.test(head) ? head.slice(0, -1) : head;
}

/** The model's scores, or null unless they are `count` whole numbers from 0 to 10. */
function scoresOf(content: string | null | undefined, count: number): number[] | null {
  let scores: unknown;
  try {
    scores = (JSON.parse(content ?? "") as { scores?: unknown } | null)?.scores;
  } catch {
    return null;
  }
  if (!Array.isArray(scores) || scores.length !== count) return null;
  return scores.every((s) => Number.isInteger(s) && s >= 0 && s <= 10) ? (scores as number[]) : null;
}

/** The reranker of the configured chat model; null without OPENAI_CHAT_MODEL. */
export function chatReranker(): Reranker | null {
  const chat = chatClient();
  if (!chat) return null;
  const { client, model, baseURL } = chat;
  const { RERANK_CHAT_MAX_CANDIDATES: maxCandidates, RERANK_CHAT_MAX_CHARS: maxChars } = env();

  // The provider's own text stays in the server log: it can quote the request, or a key.
  const failed = (err: unknown): never => {
    const status = (err as { status?: number }).status;
    const detail = redactSecrets(err instanceof Error ? err.message : String(err), [env().OPENAI_API_KEY]);
    console.error(`[kb-inspector] chat model ${model} failed to rerank:`, detail);
    const how = status ? `answered ${status}` : "did not answer";
    throw new RerankError(
      `The chat model ${model} at ${shownUrl(baseURL) ?? "OPENAI_BASE_URL"} ${how} when asked to rerank the candidates; the details are in the server log.`,
    );
  };

  return {
    name: "chat",
    version: `chat ${model}`,
    async score(query, _queryVector, pool) {
      const judged = pool.slice(0, maxCandidates);
      if (judged.length === 0) return [];
      const passages = judged.map((c, i) => `[${i + 1}] ${cut(c.text, maxChars)}`).join("\n\n");
      let content: string | null | undefined;
      try {
        const res = await client.chat.completions.create({
          model,
          temperature: 0,
          messages: [
            { role: "system", content: SYSTEM },
            { role: "user", content: `Query: ${query}\n\nPassages:\n${passages}` },
          ],
          response_format: responseFormat(judged.length),
        });
        content = res.choices[0]?.message?.content;
      } catch (err) {
        failed(err);
      }
      const scores = scoresOf(content, judged.length);
      if (!scores) {
        throw new RerankError(
          `The chat model ${model} did not score the ${judged.length} candidates as asked (one whole number from 0 to 10 each).`,
        );
      }
      // Past the bound: below every judged score (0 at least), falling in pool order so the sort keeps it.
      return pool.map((_, i) => ({ score: i < scores.length ? scores[i] : -1 - i / pool.length }));
    },
  };
}

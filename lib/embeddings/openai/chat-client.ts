import "server-only";
import OpenAI from "openai";
import { env } from "../../env.mjs";
import { DEFAULT_OPENAI_BASE_URL } from "./embedder";

/** An OpenAI client of the chat model, with the endpoint and model it was made for (`endpoint|model`). */
interface ChatClient {
  key: string;
  client: OpenAI;
}

// A module variable, not process-wide state: ask's grading and answers, evaluation's question
// writer and the chat reranker share one client per endpoint and model; a second copy of this module (Next loads some
// more than once) makes a second small client, which is harmless.
let cached: ChatClient | null = null;

/**
 * The chat model's OpenAI client, made once per endpoint and model, with the model's name and the
 * endpoint; null without OPENAI_CHAT_MODEL. Ask (lib/ask/chat.ts), evaluation's question writer and
 * the chat reranker use it.
 */
export function chatClient(): { client: OpenAI; model: string; baseURL: string } | null {
  const e = env();
  if (!e.OPENAI_CHAT_MODEL) return null;
  const baseURL = e.OPENAI_BASE_URL ?? DEFAULT_OPENAI_BASE_URL;
  const key = `${baseURL}|${e.OPENAI_CHAT_MODEL}`;
  if (cached?.key !== key) {
    cached = {
      key,
      client: new OpenAI({ apiKey: e.OPENAI_API_KEY ?? "none", baseURL, maxRetries: 1, timeout: e.OPENAI_CHAT_TIMEOUT_MS }),
    };
  }
  return { client: cached.client, model: e.OPENAI_CHAT_MODEL, baseURL };
}

import "server-only";
import type OpenAI from "openai";
import { layerState } from "../core/process-state";

/** An OpenAI client of the chat model, with the endpoint and model it was made for (`endpoint|model`). */
export interface ChatClient {
  key: string;
  client: OpenAI;
}

/** The chat model's process-wide values (lib/core/process-state.ts says why they live on globalThis). */
export interface AskState {
  /**
   * The OpenAI client of the chat model (OPENAI_CHAT_MODEL), made by lib/ask/chat.ts on first use
   * (null until then) and made again when the endpoint or the model changes: ask's grading and
   * answers and evaluation's question writer share it, made once per endpoint and model, not for
   * every question.
   */
  chatClient: ChatClient | null;
}

function createAskState(): AskState {
  return { chatClient: null };
}

/** The chat model's values, made on first use in this process. */
export const askState = () => layerState("ask", createAskState);

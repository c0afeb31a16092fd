import "server-only";
import { db, now } from "./db";

export interface ToolCall {
  id: number;
  agent_id: number;
  tool: string;
  input: string;
  ok: number;
  error: string | null;
  latency_ms: number;
  result_count: number;
  created_at: string;
}

export function logToolCall(c: {
  agentId: number;
  tool: string;
  input: unknown;
  ok: boolean;
  error?: string;
  latencyMs: number;
  resultCount: number;
}): void {
  db()
    .prepare(
      `INSERT INTO tool_calls (agent_id, tool, input, ok, error, latency_ms, result_count, created_at)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?)`,
    )
    .run(c.agentId, c.tool, JSON.stringify(c.input), c.ok ? 1 : 0, c.error ?? null, c.latencyMs, c.resultCount, now());
}

export function recentToolCalls(agentId: number, limit = 20): ToolCall[] {
  return db()
    .prepare("SELECT * FROM tool_calls WHERE agent_id = ? ORDER BY id DESC LIMIT ?")
    .all(agentId, limit) as ToolCall[];
}

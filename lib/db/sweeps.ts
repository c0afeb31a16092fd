import "server-only";
import { notFound } from "../core/errors";
import type { SweepApply, SweepRow, SweepStatus, SweepView } from "../core/sweep-types";
import { db, now } from "./client";

type Row = Omit<SweepView, "rows" | "apply" | "progress"> & {
  rows: string;
  apply: string | null;
  progress_done: number;
  progress_total: number;
};

const view = (r: Row): SweepView => {
  const { rows, apply, progress_done, progress_total, ...rest } = r;
  return {
    ...rest,
    progress: { done: progress_done, total: progress_total },
    rows: JSON.parse(rows),
    apply: apply ? JSON.parse(apply) : null,
  };
};

export function insertSweep(s: {
  agent_id: number;
  k: number;
  n_pairs: number;
  n_documents: number;
  progress_total: number;
  rows: SweepRow[];
}): number {
  const t = now();
  const { lastInsertRowid } = db()
    .prepare(
      `INSERT INTO sweeps (agent_id, k, status, n_pairs, n_documents, progress_total, rows, created_at, updated_at)
       VALUES (?, ?, 'running', ?, ?, ?, ?, ?, ?)`,
    )
    .run(s.agent_id, s.k, s.n_pairs, s.n_documents, s.progress_total, JSON.stringify(s.rows), t, t);
  return Number(lastInsertRowid);
}

export function getSweep(agentId: number, id: number): SweepView {
  const row = db().prepare("SELECT * FROM sweeps WHERE id = ? AND agent_id = ?").get(id, agentId) as Row | undefined;
  if (!row) throw notFound(`Sweep ${id} of agent ${agentId}`);
  return view(row);
}

export function latestSweep(agentId: number): SweepView | null {
  const row = db().prepare("SELECT * FROM sweeps WHERE agent_id = ? ORDER BY id DESC LIMIT 1").get(agentId) as Row | undefined;
  return row ? view(row) : null;
}

export function updateSweep(
  id: number,
  patch: { status?: SweepStatus; error?: string | null; progress_done?: number; rows?: SweepRow[]; apply?: SweepApply | null },
): void {
  const sets: string[] = ["updated_at = @updated_at"];
  const values: Record<string, unknown> = { id, updated_at: now() };
  for (const [key, value] of Object.entries(patch)) {
    if (value === undefined) continue;
    sets.push(`${key} = @${key}`);
    values[key] = key === "rows" || key === "apply" ? (value === null ? null : JSON.stringify(value)) : value;
  }
  db()
    .prepare(`UPDATE sweeps SET ${sets.join(", ")} WHERE id = @id`)
    .run(values);
}

/** At start: sweeps and applies a stopped server left running are failed, with the reason. */
export function failRunningSweeps(reason: string): number {
  const rows = db().prepare("SELECT * FROM sweeps WHERE status = 'running' OR apply LIKE '%\"status\":\"running\"%'").all() as Row[];
  for (const r of rows) {
    const v = view(r);
    updateSweep(v.id, {
      status: v.status === "running" ? "failed" : v.status,
      error: v.status === "running" ? reason : v.error,
      rows: v.rows.map((row) => (row.status === "running" || row.status === "waiting" ? { ...row, status: "failed", error: reason } : row)),
      apply: v.apply?.status === "running" ? { ...v.apply, status: "failed", error: reason } : v.apply,
    });
  }
  return rows.length;
}

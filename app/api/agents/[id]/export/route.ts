import { withAgent, type RouteCtx } from "@/lib/http/route";
import { agentFileName, exportAgentLines, linesStream } from "@/lib/transfer/export";
import { AGENT_FILE_TYPE } from "@/lib/transfer/format";
import { claimExport, heldWhileRead } from "@/lib/core/one-at-a-time";

/**
 * The agent as an NDJSON file, streamed one document at a time (lib/transfer/format.ts); one
 * export at a time across the app, held until its file is read (409 meanwhile).
 */
export const GET = withAgent<RouteCtx<"/api/agents/[id]/export">>(
  "viewer",
  async ({ agent }) =>
    new Response(
      heldWhileRead(claimExport(agent.id), () => linesStream(exportAgentLines(agent.id))),
      {
        headers: {
          "content-type": AGENT_FILE_TYPE,
          "content-disposition": `attachment; filename="${agentFileName(agent)}"`,
          "cache-control": "no-store",
        },
      },
    ),
);

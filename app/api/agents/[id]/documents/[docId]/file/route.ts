import { parseId, withAgent, type RouteCtx } from "@/lib/http/route";
import { AppError } from "@/lib/core/errors";
import { getDocument } from "@/lib/db/documents";
import { documentFile } from "@/lib/db/document-files";

type Ctx = RouteCtx<"/api/agents/[id]/documents/[docId]/file">;

const CONTENT_TYPES: Record<string, string> = { pdf: "application/pdf" };

/**
 * The uploaded file of a document, as it was uploaded (kept for PDFs, which the document page's
 * viewer opens at a chunk's page). Shown inline; the sandbox keeps a file opened on its own from
 * running anything in the app's origin.
 */
export const GET = withAgent<Ctx>("viewer", async ({ agent, params }) => {
  const doc = getDocument(agent.id, parseId(params.docId, "Document"));
  const file = documentFile(agent.id, doc.id);
  if (!file) {
    throw new AppError(
      "not_found",
      `The file of "${doc.filename}" is not kept: only PDFs uploaded since pages were recorded are. Upload the same file again to keep it.`,
    );
  }
  const name = doc.filename.split("/").pop() ?? doc.filename;
  return new Response(new Uint8Array(file.bytes), {
    headers: {
      "Content-Type": CONTENT_TYPES[file.type] ?? "application/octet-stream",
      "Content-Length": String(file.bytes.byteLength),
      "Content-Disposition": `inline; filename*=UTF-8''${encodeURIComponent(name)}`,
      "Content-Security-Policy": "sandbox",
      "Cache-Control": "private, no-cache",
    },
  });
});

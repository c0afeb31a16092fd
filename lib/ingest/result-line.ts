import { plural } from "../format/plural";
import type { IngestResult } from "./pipeline";

/**
 * What happened to one uploaded file, in one short line after its name: the outcome says it for
 * an indexed file, the message only where it adds the reason (rejected, failed) or the other copy.
 */
export function resultLine(r: Pick<IngestResult, "filename" | "outcome" | "message" | "chunk_count">): string {
  const chunks = plural(r.chunk_count, "chunk");
  switch (r.outcome) {
    case "indexed":
      return `${r.filename}: indexed (${chunks})`;
    case "replaced":
      return `${r.filename}: replaced the previous version (${chunks})`;
    case "duplicate":
      return `${r.filename}: ${r.message.charAt(0).toLowerCase()}${r.message.slice(1)}`;
    default:
      return `${r.filename}: ${r.outcome} — ${r.message}`;
  }
}

import { NextResponse } from "next/server";
import { withAgent, type RouteCtx } from "@/lib/http/route";
import { env } from "@/lib/env.mjs";
import { invalid } from "@/lib/core/errors";
import { extractText } from "@/lib/extract";
import { readLimitedForm } from "@/lib/http/body";
import { sanitizeFilename } from "@/lib/validations/filename";

// Enough text to show where the chunks fall; the whole file is indexed on upload.
const PREVIEW_CHARS = 200_000;

/** Extracts a file's text without storing anything, for the chunk preview before upload. */
export const POST = withAgent<RouteCtx<"/api/agents/[id]/documents/preview">>(
  "editor",
  async ({ req }) => {
    const file = (await readLimitedForm(req, 'one file in the field "file"')).get("file");
    if (!file || typeof file === "string") throw invalid('Send one file in the multipart field "file".');
    const filename = sanitizeFilename(file.name);
    const { type, text } = await extractText(filename, new Uint8Array(await file.arrayBuffer()), { maxBytes: env().MAX_UPLOAD_BYTES });
    return NextResponse.json({ type, length: text.length, truncated: text.length > PREVIEW_CHARS, text: text.slice(0, PREVIEW_CHARS) });
  },
  { gated: true },
);

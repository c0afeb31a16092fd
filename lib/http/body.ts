import "server-only";
import { env } from "../env.mjs";
import { AppError } from "../core/errors";

const megabytes = (n: number) => `${Math.round((n / (1024 * 1024)) * 10) / 10} MB`;

export const requestTooLarge = (limit: number) =>
  new AppError(
    "request_too_large",
    `The request is larger than the limit of ${megabytes(limit)} (${limit} bytes, set by MAX_REQUEST_BYTES). Send fewer or smaller files per request.`,
  );

export const tooManyFiles = (count: number, limit: number) =>
  new AppError(
    "too_many_files",
    `The request has ${count} files; at most ${limit} are accepted per request (set by MAX_FILES_PER_REQUEST). Send them in several requests.`,
  );

/** Refuses a form that carries more files than MAX_FILES_PER_REQUEST. */
export function checkFileCount(form: FormData): void {
  const limit = env().MAX_FILES_PER_REQUEST;
  const count = [...form.values()].filter((v) => typeof v !== "string").length;
  if (count > limit) throw tooManyFiles(count, limit);
}

/** Reads a body, counting bytes, and stops as soon as it passes `limit`. */
async function readBody(body: ReadableStream<Uint8Array> | null, limit: number): Promise<Uint8Array> {
  if (!body) return new Uint8Array(0);
  const reader = body.getReader();
  const chunks: Uint8Array[] = [];
  let total = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    total += value.byteLength;
    if (total > limit) {
      reader.cancel().catch(() => {});
      throw requestTooLarge(limit);
    }
    chunks.push(value);
  }
  return Buffer.concat(chunks, total);
}

/**
 * Parses a multipart request without holding more than MAX_REQUEST_BYTES: a larger
 * Content-Length is refused before anything is read, and a body without one (chunked)
 * is read only up to the limit. Also refuses more than MAX_FILES_PER_REQUEST files.
 */
export async function readLimitedForm(req: Request, expected: string): Promise<FormData> {
  const limit = env().MAX_REQUEST_BYTES;
  const declared = Number(req.headers.get("content-length") ?? NaN);
  if (declared > limit) throw requestTooLarge(limit);
  const bytes = await readBody(req.body, limit);
  let form: FormData;
  try {
    form = await new Response(bytes as BodyInit, { headers: { "content-type": req.headers.get("content-type") ?? "" } }).formData();
  } catch {
    throw new AppError("invalid_multipart", `Send the request as multipart/form-data with ${expected}.`);
  }
  checkFileCount(form);
  return form;
}

import "server-only";
import type { z } from "zod";
import { AppError, invalid } from "../core/errors";

/** One line of an uploaded file: its number (from 1), its bytes as sent (newline included) and its JSON. */
export interface FileLine {
  number: number;
  raw: Buffer;
  value: { type: string } & Record<string, unknown>;
}

export const badLine = (n: number, message: string) => invalid(`Line ${n} of the agent file: ${message}`);

const lineTooLong = (n: number, max: number) =>
  new AppError(
    "request_too_large",
    `Line ${n} of the agent file is longer than ${Math.round(max / (1024 * 1024))} MB, the most one line may hold; it is not a file this app exported.`,
  );

/**
 * The lines of a body as they arrive, each with its newline, never holding more than one line
 * (at most `maxLineBytes`) and the chunk it came in. The last line may lack its newline.
 */
async function* rawLines(body: ReadableStream<Uint8Array>, maxLineBytes: number): AsyncGenerator<Buffer> {
  const reader = body.getReader();
  let parts: Buffer[] = [];
  let size = 0;
  let number = 1;
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      let chunk = Buffer.from(value.buffer, value.byteOffset, value.byteLength);
      for (let nl = chunk.indexOf(10); nl !== -1; nl = chunk.indexOf(10)) {
        if (size + nl > maxLineBytes) throw lineTooLong(number, maxLineBytes);
        const line = Buffer.concat([...parts, chunk.subarray(0, nl + 1)]);
        parts = [];
        size = 0;
        number++;
        chunk = chunk.subarray(nl + 1);
        yield line;
      }
      size += chunk.byteLength;
      if (size > maxLineBytes) throw lineTooLong(number, maxLineBytes);
      // A copy: the stream may hand its buffer to the next chunk.
      if (chunk.byteLength > 0) parts.push(Buffer.from(chunk));
    }
    if (size > 0) yield Buffer.concat(parts);
  } finally {
    // Stopped early (a refusal): the rest of the body is not read.
    reader.cancel().catch(() => {});
  }
}

/** The body's lines parsed as JSON objects with a `type`; anything else is a 422 naming the line. */
export async function* jsonLines(body: ReadableStream<Uint8Array>, maxLineBytes: number): AsyncGenerator<FileLine> {
  const decoder = new TextDecoder("utf-8", { fatal: true });
  let number = 0;
  for await (const raw of rawLines(body, maxLineBytes)) {
    number++;
    let text: string;
    try {
      text = decoder.decode(raw).replace(/\r?\n$/, "");
    } catch {
      throw badLine(number, "it is not UTF-8 text.");
    }
    if (text.trim() === "") throw badLine(number, "it is empty; every line of the file is a JSON object.");
    let value: unknown;
    try {
      value = JSON.parse(text);
    } catch {
      throw badLine(number, "it is not valid JSON (the file may be cut short or damaged).");
    }
    if (typeof value !== "object" || value === null || Array.isArray(value) || typeof (value as { type?: unknown }).type !== "string") {
      throw badLine(number, 'it is not a JSON object with a "type".');
    }
    yield { number, raw, value: value as FileLine["value"] };
  }
}

/** A line checked against the schema of its type. */
export function lineAs<S extends z.ZodType>(schema: S, line: FileLine): z.infer<S> {
  const parsed = schema.safeParse(line.value);
  if (parsed.success) return parsed.data;
  const issues = parsed.error.issues.map((i) => (i.path.length ? `${i.path.join(".")}: ${i.message}` : i.message)).join("; ");
  throw badLine(line.number, `a ${line.value.type} line that does not fit the format (${issues}).`);
}

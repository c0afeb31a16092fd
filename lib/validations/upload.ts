import { z } from "zod";
import { CHUNK_STRATEGIES, DEFAULT_CHUNK_OVERLAP, DEFAULT_CHUNK_SIZE, DEFAULT_CHUNK_STRATEGY } from "../core/chunking";

const whole = (name: string, min: number) =>
  z.coerce
    .number({ error: `${name} must be a whole number.` })
    .int(`${name} must be a whole number.`)
    .min(min, `${name} must be at least ${min}.`)
    .max(100_000, `${name} must be at most 100000.`);

export const chunkSettingsSchema = z
  .object({
    chunk_size: whole("chunk_size", 1).default(DEFAULT_CHUNK_SIZE),
    chunk_overlap: whole("chunk_overlap", 0).default(DEFAULT_CHUNK_OVERLAP),
    chunk_strategy: z
      .enum(CHUNK_STRATEGIES, { error: `chunk_strategy must be one of: ${CHUNK_STRATEGIES.join(", ")}.` })
      .default(DEFAULT_CHUNK_STRATEGY),
  })
  .refine((s) => s.chunk_overlap < s.chunk_size, {
    message: "chunk_overlap must be smaller than chunk_size.",
    path: ["chunk_overlap"],
  });

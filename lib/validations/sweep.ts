import { z } from "zod";
import { MAX_SWEEP_SETTINGS } from "../core/sweep-types";
import { chunkSettingsSchema } from "./upload";
import { MAX_K } from "./pair";

export const sweepRequestSchema = z.object({
  settings: z
    .array(chunkSettingsSchema.and(z.object({ embedding_model: z.string().trim().min(1).max(200).optional() })))
    .min(1, "Pick at least one chunk setting to compare.")
    .max(MAX_SWEEP_SETTINGS, `A sweep compares at most ${MAX_SWEEP_SETTINGS} settings.`),
  k: z.coerce.number().int().min(1).max(MAX_K).default(3),
});

export const sweepApplySchema = z.object({ row: z.number().int().min(0) });

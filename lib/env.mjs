// The app's configuration, parsed once with zod. Plain ESM so the launcher
// (scripts/start.mjs) checks it before starting anything.
import path from "node:path";
import { z } from "zod";

const port = z.coerce.number().int().min(1).max(65535);
const flag = z.enum(["0", "1", "true", "false"]).transform((v) => v === "1" || v === "true");

const schema = z
  .object({
    PORT: port.default(3000),
    DATA_DIR: z.string().min(1).default("./data"),
    CHROMA_URL: z.url().optional(),
    CHROMA_PORT: port.optional(),
    CHROMA_TENANT: z.string().min(1).optional(),
    CHROMA_DATABASE: z.string().min(1).optional(),
    CHROMA_COLLECTION_PREFIX: z
      .string()
      .regex(/^[a-zA-Z0-9][a-zA-Z0-9_-]{0,40}$/, "letters, digits, _ and - only")
      .default("kb"),
    EMBEDDING_PROVIDER: z.enum(["local", "openai"]).default("local"),
    OPENAI_API_KEY: z.string().min(1).optional(),
    OPENAI_BASE_URL: z.url().optional(),
    OPENAI_EMBEDDING_MODEL: z.string().min(1).default("text-embedding-3-small"),
    OPENAI_EMBEDDING_DIMENSION: z.coerce.number().int().positive().optional(),
    MAX_UPLOAD_BYTES: z.coerce.number().int().positive().default(20 * 1024 * 1024),
    KB_DEMO: flag.default(true),
  })
  .superRefine((env, ctx) => {
    if (env.EMBEDDING_PROVIDER === "openai" && !env.OPENAI_API_KEY && !env.OPENAI_BASE_URL) {
      ctx.addIssue({
        code: "custom",
        path: ["OPENAI_API_KEY"],
        message: "is required when EMBEDDING_PROVIDER=openai (or set OPENAI_BASE_URL for a server that needs no key)",
      });
    }
  });

export class ConfigError extends Error {}

/**
 * Parses a set of variables; throws ConfigError naming each bad variable.
 * @param {Record<string, string | undefined>} [source]
 */
export function parseEnv(source = process.env) {
  // Empty strings count as unset, as in most .env files.
  const cleaned = Object.fromEntries(Object.entries(source).filter(([, v]) => v !== undefined && v !== ""));
  const result = schema.safeParse(cleaned);
  if (!result.success) {
    const lines = result.error.issues.map((i) => {
      const name = String(i.path[0] ?? "environment");
      const shown = name in cleaned ? ` (got "${cleaned[name]}")` : "";
      return `  ${name}${shown}: ${i.message}`;
    });
    throw new ConfigError(`Invalid configuration:\n${lines.join("\n")}`);
  }
  const env = result.data;
  return { ...env, DATA_DIR: path.resolve(env.DATA_DIR) };
}

let cached;
/** The configuration of this process, parsed on first use. */
export function env() {
  cached ??= parseEnv(process.env);
  return cached;
}

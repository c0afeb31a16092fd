import { z } from "zod";
import { checkMetadata } from "../core/metadata";

/** At most this many page URLs in a source's own list (a sitemap can name more, up to FETCH_MAX_PAGES). */
export const MAX_LISTED_URLS = 5000;

const httpUrl = z
  .string()
  .trim()
  .max(2048, "a URL is at most 2,048 characters.")
  .refine((v) => {
    try {
      const u = new URL(v);
      return (u.protocol === "http:" || u.protocol === "https:") && !u.username && !u.password;
    } catch {
      return false;
    }
  }, "must be an http:// or https:// URL without a user name or password.")
  .transform((v) => new URL(v).href);

const onRemoved = z.enum(["propose", "remove"], {
  error: 'on_removed must be "propose" (list the removal for a person to confirm) or "remove".',
});
const interval = z.coerce
  .number({ error: "interval_minutes must be a whole number of minutes." })
  .int("interval_minutes must be a whole number of minutes.")
  .min(5, "interval_minutes must be at least 5.")
  .max(60 * 24 * 31, "interval_minutes must be at most 44640 (31 days).")
  .nullable();

/** Metadata every page of the source gets (a 422 names a key or value the app cannot take). */
const sourceMetadata = z.unknown().transform((v, ctx) => {
  try {
    return checkMetadata(v);
  } catch (err) {
    ctx.addIssue({ code: "custom", message: err instanceof Error ? err.message : String(err) });
    return z.NEVER;
  }
});

/** Whether a sitemap's entries on other hosts are fetched (public ones only; allow-listed hosts never). */
const crossHost = z.boolean({ error: "cross_host must be true or false." });

/** POST /api/agents/{id}/sources: a sitemap URL or a list of page URLs, one of the two. */
export const sourceCreateSchema = z
  .object({
    sitemap: httpUrl.optional(),
    urls: z
      .array(httpUrl)
      .min(1, "urls needs at least one URL.")
      .max(MAX_LISTED_URLS, `urls holds at most ${MAX_LISTED_URLS} URLs.`)
      .optional(),
    on_removed: onRemoved.default("propose"),
    interval_minutes: interval.default(null),
    cross_host: crossHost.default(false),
    metadata: sourceMetadata.optional(),
  })
  .refine((s) => (s.sitemap === undefined) !== (s.urls === undefined), {
    message: 'Give either "sitemap" (a sitemap URL) or "urls" (page URLs), not both.',
    path: ["sitemap"],
  })
  .transform((s) => ({
    kind: s.sitemap ? ("sitemap" as const) : ("urls" as const),
    location: s.sitemap ?? JSON.stringify([...new Set(s.urls)]),
    on_removed: s.on_removed,
    interval_minutes: s.interval_minutes,
    cross_host: s.cross_host,
    metadata: s.metadata ?? {},
  }));

export const sourceUpdateSchema = z.object({
  on_removed: onRemoved.optional(),
  interval_minutes: interval.optional(),
  cross_host: crossHost.optional(),
  metadata: sourceMetadata.optional(),
});

export const syncRequestSchema = z.object({ wait: z.boolean().default(false) });

/** Proposed removals: remove the pages' documents, or keep them (the proposal is dropped). */
export const removalsSchema = z.object({
  action: z.enum(["remove", "keep"], { error: 'action must be "remove" or "keep".' }),
  urls: z.union([z.literal("all"), z.array(z.string()).min(1)], { error: 'urls must be a list of page URLs or "all".' }),
});

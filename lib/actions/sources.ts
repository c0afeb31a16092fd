"use server";

import { revalidatePath } from "next/cache";
import { ZodError } from "zod";
import { requireRole } from "@/lib/auth";
import { getAgent } from "@/lib/db/agents";
import { createSource, deleteSource, type Source } from "@/lib/db/sources";
import { changeSource } from "@/lib/sources/settings";
import { resolveRemovals } from "@/lib/sources/removals";
import { startSourceSync } from "@/lib/sources/sync";
import { removalsSchema, sourceCreateSchema, sourceUpdateSchema } from "@/lib/validations/source";
import { isVectorStoreUnavailable, vectorStoreUnavailable } from "@/lib/core/errors";
import { plural } from "@/lib/format/plural";
import { formText, toFormState, type FormState } from "./form-state";

export type SourceFormValues = {
  kind: string;
  sitemap: string;
  urls: string;
  on_removed: string;
  interval_minutes: string;
  cross_host: string;
  /** JSON: metadata every page of the source gets; blank for none. */
  metadata: string;
};
export type SourceFormState = FormState<SourceFormValues>;
export type SourceSettingsValues = Pick<SourceFormValues, "on_removed" | "interval_minutes" | "cross_host" | "metadata">;
export type SourceSettingsState = FormState<SourceSettingsValues>;
export type SourceActionState = Pick<FormState, "ok" | "message">;

const lines = (text: string) =>
  text
    .split(/\r?\n/)
    .map((l) => l.trim())
    .filter(Boolean);

/** The schema speaks of JSON fields; the form's messages name what was typed, and where. */
function inFormTerms(err: ZodError, urls: string[]): ZodError {
  return new ZodError(
    err.issues.map((issue) => {
      const [field, index] = issue.path;
      if (field === "sitemap" && !issue.message.startsWith("Give")) return { ...issue, message: `The sitemap URL: ${issue.message}` };
      if (field === "urls" && typeof index === "number")
        return { ...issue, message: `Line ${index + 1} (“${urls[index]}”): ${issue.message}` };
      if (field === "interval_minutes") return { ...issue, message: issue.message.replace("interval_minutes", "The interval") };
      if (field === "metadata") return { ...issue, message: `Metadata: ${issue.message}` };
      return issue;
    }),
  );
}

/** The metadata field as typed: blank is none; text that is not JSON is passed on for the schema to refuse. */
function metadataText(text: string): unknown {
  if (!text.trim()) return {};
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return "not JSON";
  }
}

/** "Add source": a sitemap URL or a list of page URLs; nothing is fetched until it syncs. */
export async function addSourceAction(agentId: number, _prev: SourceFormState, form: FormData): Promise<SourceFormState> {
  await requireRole("editor");
  const values: SourceFormValues = {
    kind: formText(form, "kind") === "urls" ? "urls" : "sitemap",
    sitemap: formText(form, "sitemap"),
    urls: formText(form, "urls"),
    on_removed: formText(form, "on_removed"),
    interval_minutes: formText(form, "interval_minutes"),
    cross_host: formText(form, "cross_host"),
    metadata: formText(form, "metadata"),
  };
  const failed = { message: "The source was not added.", values };
  const urls = lines(values.urls);
  if (values.kind === "sitemap" ? values.sitemap.trim() === "" : urls.length === 0) {
    const [field, text] =
      values.kind === "sitemap" ? ["sitemap", "Give the sitemap's URL."] : ["urls", "Give at least one page URL, one per line."];
    return { message: "The source was not added.", errors: { [field]: [text] }, values };
  }
  const parsed = sourceCreateSchema.safeParse({
    ...(values.kind === "sitemap" ? { sitemap: values.sitemap } : { urls }),
    on_removed: values.on_removed || undefined,
    // Blank: synced only with "Sync now".
    interval_minutes: values.interval_minutes.trim() === "" ? null : values.interval_minutes.trim(),
    // An unticked box sends nothing.
    cross_host: values.cross_host === "on",
    metadata: metadataText(values.metadata),
  });
  if (!parsed.success) return toFormState(inFormTerms(parsed.error, urls), failed);
  try {
    getAgent(agentId);
    createSource(agentId, parsed.data);
  } catch (err) {
    return toFormState(err, failed);
  }
  revalidatePath(`/agents/${agentId}`);
  return { ok: true, message: "Source added. Nothing is fetched until it syncs: press Sync now." };
}

/** "Save settings": what a gone page's document becomes, and how often the source syncs by itself. */
export async function updateSourceAction(
  agentId: number,
  sourceId: number,
  _prev: SourceSettingsState,
  form: FormData,
): Promise<SourceSettingsState> {
  await requireRole("editor");
  const values: SourceSettingsValues = {
    on_removed: formText(form, "on_removed"),
    interval_minutes: formText(form, "interval_minutes"),
    cross_host: formText(form, "cross_host"),
    metadata: formText(form, "metadata"),
  };
  const failed = { message: "The settings were not saved.", values };
  const parsed = sourceUpdateSchema.safeParse({
    on_removed: values.on_removed || undefined,
    // Blank: synced only with "Sync now".
    interval_minutes: values.interval_minutes.trim() === "" ? null : values.interval_minutes.trim(),
    cross_host: values.cross_host === "on",
    metadata: metadataText(values.metadata),
  });
  if (!parsed.success) return toFormState(inFormTerms(parsed.error, []), failed);
  let saved: Source;
  try {
    getAgent(agentId);
    saved = changeSource(agentId, sourceId, parsed.data);
  } catch (err) {
    return toFormState(err, failed);
  }
  revalidatePath(`/agents/${agentId}`);
  const gone = saved.on_removed === "propose" ? "its removal is proposed" : "its document is removed";
  const when = saved.interval_minutes === null ? "synced only with Sync now" : `synced every ${plural(saved.interval_minutes, "minute")}`;
  const hosts = saved.cross_host ? " Sitemap entries on other public hosts are followed." : "";
  return { ok: true, message: `Saved: when a page is gone, ${gone}; ${when}.${hosts}` };
}

/** "Sync now": the sync goes on in the background; the page follows it until it finishes. */
export async function syncSourceAction(
  agentId: number,
  sourceId: number,
  _prev: SourceActionState,
  _form: FormData,
): Promise<SourceActionState> {
  await requireRole("editor");
  let id: number;
  try {
    const { record, done } = startSourceSync(agentId, sourceId);
    // Its outcome is recorded with the sync, which the page shows; nothing here waits for it.
    void done.catch(() => {});
    id = record.id;
  } catch (err) {
    return toFormState(err);
  }
  revalidatePath(`/agents/${agentId}`);
  return { ok: true, message: `Sync #${id} started.` };
}

/** "Remove" or "Keep" on one proposed removal (the form's `url`), or "Remove all" (no `url`). */
export async function resolveRemovalAction(
  agentId: number,
  sourceId: number,
  _prev: SourceActionState,
  form: FormData,
): Promise<SourceActionState> {
  await requireRole("editor");
  const url = formText(form, "url");
  const parsed = removalsSchema.safeParse({ action: formText(form, "action"), urls: url === "" ? "all" : [url] });
  if (!parsed.success) return toFormState(parsed.error, { message: "Nothing was changed." });
  let done: { removed: number; kept: number };
  try {
    done = await resolveRemovals(agentId, sourceId, parsed.data.action, parsed.data.urls);
  } catch (err) {
    // Chroma down is expected now and then: said beside the buttons, not on the error page.
    return toFormState(isVectorStoreUnavailable(err) ? vectorStoreUnavailable() : err);
  }
  // The Documents table and the other tabs lose the removed documents.
  revalidatePath(`/agents/${agentId}`, "layout");
  return {
    ok: true,
    message:
      parsed.data.action === "remove"
        ? `Removed ${plural(done.removed, "document")}.`
        : `Kept ${plural(done.kept, "document")}; a later sync proposes the removal again while the page is still gone.`,
  };
}

/** Deletes a source with its pages and syncs; the documents it made stay, as uploads do. */
export async function deleteSourceAction(agentId: number, sourceId: number): Promise<SourceActionState> {
  await requireRole("editor");
  try {
    deleteSource(agentId, sourceId);
  } catch (err) {
    return toFormState(err);
  }
  revalidatePath(`/agents/${agentId}`);
  return { ok: true, message: "Source deleted; its documents stay." };
}

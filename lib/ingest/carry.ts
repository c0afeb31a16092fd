import type { Chunk } from "../core/chunking";
import type { OffChunk, StoredChunk } from "../db/chunks";

/**
 * A document's curation (lib/ingest/curate.ts) and what becomes of it when the document is
 * replaced, re-chunked or re-synced: the one policy for all three, shown on the document page
 * and previewed before a re-chunk.
 */

/** One chunk of a curated version, in its order. */
export interface CurationItem {
  /** Its id; null for a chunk that has none yet (written by hand in this change, or made by the chunker). */
  id: number | null;
  start: number;
  end: number;
  text: string;
  questions: string[];
  /** The chunker's text before an editor changed it; '' when written by hand; null when unedited. */
  original: string | null;
  enabled: boolean;
  /** Its table's header, as the chunker gave it (lib/core/tables.ts); absent or null without one. */
  context?: string | null;
  /** Where its vector is in the version it comes from (document id and chunk index), when it is indexed there. */
  from?: { document_id: number; chunk_index: number };
}

/** A document's curation: its chunks, whether it is switched on, and the chunker's texts editors deleted. */
export interface CurationState {
  enabled: boolean;
  chunks: CurationItem[];
  removed: string[];
}

/** How the policy reads, for the document page. */
export const CARRY_POLICY = [
  "An edit is kept when a chunk of the new version holds the text it was made from; otherwise it is kept as a note.",
  "A switched-off or deleted chunk stays so when a chunk of the new version holds the same text; otherwise the note says so.",
  "Questions go with the chunk that holds the same text, or else the chunk that now holds most of the same sentences; with neither, they are kept in the note.",
  "Chunks written by hand are kept, after the chunk that now holds the text they followed.",
  "A document switched off stays switched off.",
];

/** Whether a version carries any curation to keep. */
export const isCurated = (s: CurationState): boolean =>
  !s.enabled || s.removed.length > 0 || s.chunks.some((c) => !c.enabled || c.original !== null || c.questions.length > 0);

const norm = (t: string) => t.replace(/\s+/g, " ").trim().toLowerCase();
const sentences = (t: string) =>
  new Set(
    t
      .split(/(?<=[.!?])\s+|\n+/)
      .map(norm)
      .filter((s) => s.length >= 3),
  );
const clip = (t: string, n = 120) => {
  const one = t.replace(/\s+/g, " ").trim();
  return one.length > n ? `${one.slice(0, n - 1)}…` : one;
};

export interface Carried {
  state: CurationState;
  /** What was kept, one line each. */
  carried: string[];
  /** What could not be, one line each, with the text an editor wrote. */
  notes: string[];
}

/** Applies a version's curation to the chunks of a new chunking of its document (or of a new file under its name). */
export function carryCuration(prev: CurationState, next: Chunk[]): Carried {
  const items: CurationItem[] = next.map((c) => ({
    id: null,
    start: c.start,
    end: c.end,
    text: c.text,
    questions: [],
    original: null,
    enabled: true,
    ...(c.context ? { context: c.context } : {}),
  }));
  const carried: string[] = [];
  const notes: string[] = [];
  const unclaimed = new Map<string, number[]>();
  items.forEach((c, i) => unclaimed.set(norm(c.text), [...(unclaimed.get(norm(c.text)) ?? []), i]));
  const claim = (text: string): number | undefined => unclaimed.get(norm(text))?.shift();
  const itemSentences = items.map((c) => sentences(c.text));
  const mostShared = (text: string): number | undefined => {
    const mine = sentences(text);
    let best: number | undefined;
    let bestCount = 0;
    itemSentences.forEach((s, i) => {
      let n = 0;
      for (const x of mine) if (s.has(x)) n++;
      if (n > bestCount) [best, bestCount] = [i, n];
    });
    return best;
  };

  const handWritten: { item: CurationItem; after: number }[] = [];
  let anchor = -1;
  for (const o of prev.chunks) {
    const label = `chunk ${o.id ?? "(new)"}`;
    if (o.original === "") {
      handWritten.push({ item: { ...o, from: undefined }, after: anchor });
      continue;
    }
    const base = o.original ?? o.text;
    const same = claim(base);
    if (same !== undefined) {
      const item = items[same];
      item.id = o.id;
      anchor = same;
      if (o.original !== null) {
        item.text = o.text;
        item.original = o.original;
        carried.push(`The edit of ${label} is kept.`);
      }
      if (!o.enabled) {
        item.enabled = false;
        carried.push(`${label} stays switched off.`);
      }
      if (o.questions.length) {
        item.questions = [...new Set([...item.questions, ...o.questions])];
        carried.push(`The questions of ${label} stay with it.`);
      }
      continue;
    }
    const best = mostShared(base);
    if (best !== undefined) anchor = Math.max(anchor, best);
    if (o.original !== null)
      notes.push(
        `${label} was edited, and no chunk now holds the text it was edited from; the edit is not applied. It read: "${clip(o.text)}"`,
      );
    if (!o.enabled)
      notes.push(`${label} was switched off, and no chunk now holds the same text; nothing is switched off for it: "${clip(base)}"`);
    if (o.questions.length) {
      if (best !== undefined) {
        items[best].questions = [...new Set([...items[best].questions, ...o.questions])];
        carried.push(`The questions of ${label} go to the chunk that now holds most of its sentences.`);
      } else
        notes.push(
          `The questions of ${label} are not attached: no chunk now holds any of its sentences. They were: ${o.questions.join(" | ")}`,
        );
    }
  }

  const removed: string[] = [];
  const dropped = new Set<number>();
  for (const r of prev.removed) {
    const same = claim(r);
    if (same === undefined) continue; // the text is gone from the document: nothing to delete
    dropped.add(same);
    removed.push(items[same].original ?? items[same].text);
    carried.push(`A deleted chunk stays deleted: "${clip(r, 60)}"`);
  }

  const out: CurationItem[] = [];
  const place = (after: number) => {
    for (const h of handWritten.filter((x) => x.after === after)) {
      out.push(h.item);
      carried.push(`The chunk written by hand "${clip(h.item.text, 60)}" is kept.`);
    }
  };
  place(-1);
  items.forEach((item, i) => {
    if (!dropped.has(i)) out.push(item);
    place(i);
  });
  for (const h of handWritten.filter((x) => x.after >= items.length)) out.push(h.item);
  if (!prev.enabled) carried.push("The document stays switched off.");
  return { state: { enabled: prev.enabled, chunks: out, removed }, carried, notes };
}

/** A curation as the rows of a new version: its indexed chunks (numbered from 0), those in no index, and where each indexed one's vector may be found. */
export function versionRows(state: CurationState): {
  chunks: StoredChunk[];
  off: OffChunk[];
  from: Map<number, { document_id: number; chunk_index: number }>;
} {
  const chunks: StoredChunk[] = [];
  const off: OffChunk[] = [];
  const from = new Map<number, { document_id: number; chunk_index: number }>();
  state.chunks.forEach((c, position) => {
    const fields = {
      start: c.start,
      end: c.end,
      text: c.text,
      questions: c.questions,
      uid: c.id,
      position,
      original: c.original,
      ...(c.context ? { context: c.context } : {}),
    };
    if (state.enabled && c.enabled) {
      if (c.from) from.set(chunks.length, c.from);
      chunks.push({ index: chunks.length, ...fields });
    } else off.push({ ...fields, enabled: c.enabled });
  });
  return { chunks, off, from };
}

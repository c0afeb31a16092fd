/** What the document page says after a curation change, by the change (passed to the new version's page as `?done=`). */
export const CURATION_DONE = {
  changed: "Chunk changed.",
  added: "Chunk added.",
  deleted: "Chunk deleted.",
  off: "Document switched off.",
  on: "Document switched on.",
  undone: "Last change undone.",
} as const;

export type CurationDone = keyof typeof CURATION_DONE;

export const isCurationDone = (value: unknown): value is CurationDone => typeof value === "string" && Object.hasOwn(CURATION_DONE, value);

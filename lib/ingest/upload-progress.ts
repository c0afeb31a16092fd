import type { FileProgress } from "./uploads";

/**
 * A file a long upload's progress lists: being indexed now, or done and not indexed (rejected or
 * failed). Queued and indexed files are only counted. Shared by `?files=active` and the page.
 */
export const isActiveFile = (f: FileProgress) => (f.result ? f.result.status !== "ready" : f.stage !== "queued");

// The app's upload APIs as the bench drives them: upload requests of F files with P in flight
// (--via documents), or one upload job per agent as the upload page sends a folder (--via jobs).
import { FILES_PER_REQUEST, JOB_REQUEST_FILES, args, log } from "./options.mjs";
import { http } from "./http.mjs";

/** The upload helpers for the app at `base`; each fills in the documentId and chunkCount of the files it indexed. */
export function uploader(base) {
  /** The agents' upload requests, interleaved as several teams uploading at once would send them. */
  const uploadBatches = (list) => {
    const batches = [];
    for (let i = 0; batches.length === 0 || list.some((a) => i < a.articles.length); i += FILES_PER_REQUEST) {
      for (const a of list) if (i < a.articles.length) batches.push({ agent: a, files: a.articles.slice(i, i + FILES_PER_REQUEST) });
    }
    return batches;
  };
  /** Sends the requests with `--parallel-uploads` of them in flight; returns the chunks indexed. */
  const sendUploads = async (batches) => {
    let indexed = 0;
    let next = 0;
    const worker = async () => {
      while (next < batches.length) {
        const b = batches[next++];
        const form = new FormData();
        for (const f of b.files) form.append("files", new Blob([f.text], { type: "text/markdown" }), f.filename);
        const body = await http(`${base}/api/agents/${b.agent.id}/documents`, { method: "POST", body: form }, [201]);
        for (const d of body.documents) {
          if (d.status !== "ready") throw new Error(`${d.filename} was not indexed: ${d.message}`);
          const f = b.files.find((x) => x.filename === d.filename);
          f.documentId = d.document_id;
          f.chunkCount = d.chunk_count;
          indexed += d.chunk_count;
        }
        if (next % 25 === 0) log(`ingest: ${indexed} chunks indexed`);
      }
    };
    await Promise.all(Array.from({ length: args.parallelUploads }, worker));
    return indexed;
  };
  /**
   * One upload job per agent, all at once, as people importing a folder each from the upload
   * page: the first request starts the job with `expected_files`, the others (50 files each)
   * follow one after another as the app takes them; then the job is polled until it ends.
   */
  let progressRequests = 0;
  const sendJobs = async (parts) => {
    let indexed = 0;
    const formOf = (files) => {
      const form = new FormData();
      for (const f of files) form.append("files", new Blob([f.text], { type: "text/markdown" }), f.filename);
      return form;
    };
    await Promise.all(
      parts.map(async ({ agent, files }) => {
        const groups = [];
        for (let i = 0; i < files.length; i += JOB_REQUEST_FILES) groups.push(files.slice(i, i + JOB_REQUEST_FILES));
        const first = formOf(groups[0]);
        first.set("expected_files", String(files.length));
        const job = await http(`${base}/api/agents/${agent.id}/uploads`, { method: "POST", body: first }, [202]);
        for (const g of groups.slice(1))
          await http(`${base}/api/agents/${agent.id}/uploads/${job.id}`, { method: "POST", body: formOf(g) }, [202]);
        // Waited for as a command-line import waits (?wait answers when the job ends), or with
        // --poll-ms followed as the page follows a long upload (only the files being indexed
        // listed); then read once in full.
        let state;
        do {
          if (args.pollMs > 0) await new Promise((r) => setTimeout(r, args.pollMs));
          state = await http(`${base}/api/agents/${agent.id}/uploads/${job.id}?files=active${args.pollMs > 0 ? "" : "&wait=60"}`);
          progressRequests++;
        } while (!state.finished);
        state = await http(`${base}/api/agents/${agent.id}/uploads/${job.id}`);
        if (state.files.length !== files.length) throw new Error(`upload job ${job.id} has ${state.files.length} of ${files.length} files`);
        for (const [i, p] of state.files.entries()) {
          if (p.result?.status !== "ready") throw new Error(`${p.filename} was not indexed: ${p.result?.message}`);
          files[i].documentId = p.result.document_id;
          files[i].chunkCount = p.result.chunk_count;
          indexed += p.result.chunk_count;
        }
      }),
    );
    return indexed;
  };
  /** The round's share of each agent's articles, for --via jobs. */
  const jobParts = (list, r, rounds) =>
    list
      .map((a) => ({
        agent: a,
        files: a.articles.slice(Math.floor((r * a.articles.length) / rounds), Math.floor(((r + 1) * a.articles.length) / rounds)),
      }))
      .filter((p) => p.files.length > 0);
  const upload = (list) => (args.via === "jobs" ? sendJobs(jobParts(list, 0, 1)) : sendUploads(uploadBatches(list)));
  return { uploadBatches, sendUploads, sendJobs, jobParts, upload, progressRequests: () => progressRequests };
}

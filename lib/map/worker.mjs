// The map's worker thread (see run-worker.ts): plain ESM that Next never bundles, loaded from the
// source tree, so the projection's seconds of arithmetic never hold up the server's event loop.
import { parentPort } from "node:worker_threads";
import { Projection } from "./projection.mjs";

/** @type {Projection | null} */
let projection = null;

parentPort?.on("message", (msg) => {
  try {
    switch (msg.type) {
      case "start":
        projection = new Projection(msg.options);
        return;
      case "sample":
        return projection.addSample(msg.vectors, msg.rows);
      case "fit":
        projection.fit();
        return parentPort.postMessage({ type: "fitted" });
      case "rows":
        projection.addRows(msg.vectors, msg.rows);
        return parentPort.postMessage({ type: "taken" });
      case "questions":
        return projection.addQuestions(msg.vectors, msg.rows);
      case "layout": {
        const { chunks, questions } = projection.layout((phase, fraction) => parentPort.postMessage({ type: "progress", phase, fraction }));
        return parentPort.postMessage({ type: "done", chunks, questions }, [chunks.buffer, questions.buffer]);
      }
    }
  } catch (err) {
    parentPort?.postMessage({ type: "failed", message: err instanceof Error ? err.message : String(err) });
  }
});

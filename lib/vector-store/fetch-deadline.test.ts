import http from "node:http";
import type { AddressInfo } from "node:net";
import v8 from "node:v8";
import vm from "node:vm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { chromaFetch, ChromaTimeoutError } from "./fetch";

// A Chroma that takes requests and never answers (as one stopped with SIGSTOP does), and the
// garbage collector run while a request waits: a deadline that only a weakly held signal carries
// (AbortSignal.timeout, a Request copied with its signal) was seen never to fire under load.
v8.setFlagsFromString("--expose-gc");
const gc = vm.runInNewContext("gc") as () => void;

let server: http.Server;
let url = "";
const held: http.ServerResponse[] = [];
beforeAll(async () => {
  server = http.createServer((_req, res) => void held.push(res));
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/api/v2/heartbeat`;
});
afterAll(async () => {
  for (const res of held) res.destroy();
  server.closeAllConnections();
  await new Promise((r) => server.close(r));
});

describe("a Chroma call's deadline", () => {
  it("ends the call with ChromaTimeoutError even when the garbage collector runs meanwhile, for a URL or a Request", async () => {
    const f = chromaFetch(300);
    for (const input of [url, new Request(url, { method: "POST", body: "{}" })]) {
      const call = f(input, input instanceof Request ? undefined : { method: "GET" });
      // Collect while the request waits, until it has ended one way or another.
      let ended = false;
      const settled = call
        .then(
          () => "answered",
          (err) => err,
        )
        .finally(() => (ended = true));
      while (!ended) {
        gc();
        await new Promise((r) => setImmediate(r));
      }
      const err = await settled;
      expect(err).toBeInstanceOf(ChromaTimeoutError);
      expect((err as ChromaTimeoutError).timeoutMs).toBe(300);
    }
  }, 20_000);
});

import http from "node:http";
import { expect, test } from "./fixtures";

// The upload routes answer a refusal before reading the body, so a huge upload costs nothing.

/** Declares `declared` bytes, sends only the first megabyte, and waits for the answer. */
function oversizedUpload(base: string, path: string, declared: number, headers: Record<string, string> = {}) {
  const url = new URL(path, base);
  return new Promise<{ status: number; body: string; sent: number }>((resolve, reject) => {
    let sent = 0;
    const req = http.request(
      url,
      { method: "POST", headers: { "content-type": "multipart/form-data; boundary=x", "content-length": String(declared), ...headers } },
      (res) => {
        let body = "";
        res.on("data", (d) => (body += d));
        res.on("end", () => resolve({ status: res.statusCode ?? 0, body, sent }));
      },
    );
    req.on("error", (err) => (sent > 0 ? resolve({ status: -1, body: String(err), sent }) : reject(err)));
    const piece = Buffer.alloc(64 * 1024, 97);
    for (let i = 0; i < 16; i++) {
      req.write(piece);
      sent += piece.length;
    }
    // The rest is never sent: only a server that answers without waiting for it lets this resolve.
  });
}

test("a 200 MB upload is refused with 413 before its body is read", async ({ agent, baseURL }) => {
  const res = await oversizedUpload(baseURL!, `/api/agents/${agent.id}/documents`, 200 * 1024 * 1024);
  expect(res.status).toBe(413);
  expect(JSON.parse(res.body).error.code).toBe("request_too_large");
  expect(res.sent).toBeLessThan(2 * 1024 * 1024);
});

test("the upload routes refuse a cross-origin write before reading it, like every other route", async ({ agent, baseURL }) => {
  const res = await oversizedUpload(baseURL!, `/api/agents/${agent.id}/documents/preview`, 5 * 1024 * 1024, {
    origin: "http://evil.example",
  });
  expect(res.status).toBe(403);
  expect(JSON.parse(res.body).error.code).toBe("forbidden_origin");
});

import { AppInstance } from "./app-instance";
import { expect, test } from "./fixtures";

/**
 * An upload of many files when the app restarts in the middle of it. Its job lived in the
 * server's memory: the page must say what happened and let the same files be sent again,
 * and sending them again must end with every file indexed once.
 */

const PORT = Number(process.env.E2E_RESTART_PORT ?? 3147);
// A small request limit: the upload goes in many requests, and the job has room for only a
// few of them (twice the limit) while Chroma does not answer.
const REQUEST_BYTES = 32 * 1024;
const FILES = 160;

let app: AppInstance;
test.beforeAll(async () => {
  test.setTimeout(180_000);
  app = new AppInstance(PORT, { MAX_REQUEST_BYTES: String(REQUEST_BYTES), CHROMA_TIMEOUT_MS: "120000" });
  await app.start(150_000);
});
test.afterAll(async () => {
  await app?.stop();
  app?.remove();
});

test("an upload cut off by an app restart says so, and the same files sent again are all indexed once", async ({ page }) => {
  test.setTimeout(240_000);
  const api = (path: string) => `${app.url}${path}`;
  const created = await page.request.post(api("/api/agents"), { data: { name: "Restart during upload", tools: ["document_search"] } });
  const agentId = (await created.json()).id as number;
  const files = Array.from({ length: FILES }, (_, i) => ({
    name: `note-${String(i).padStart(3, "0")}.md`,
    mimeType: "text/markdown",
    buffer: Buffer.from(`# Note ${i}\n\n${`Desk note ${i} about locker ${i % 13} and parcel ${i % 17}. `.repeat(12)}`),
  }));

  // The first 40 were uploaded before: sent again, they are recognised and change nothing.
  const earlier = new FormData();
  for (const f of files.slice(0, 40)) earlier.append("files", new Blob([f.buffer]), f.name);
  expect((await page.request.fetch(api(`/api/agents/${agentId}/documents`), { method: "POST", multipart: earlier })).status()).toBe(201);

  await page.goto(api(`/agents/${agentId}`));
  await page.getByLabel("Files").setInputFiles(files);
  await expect(page.getByText(`${FILES} files selected`)).toBeVisible();
  // Chroma stops answering, so the files sent wait in the job and the page cannot send the rest.
  const chroma = app.chromaPid();
  expect(chroma, "the app's Chroma").not.toBeNull();
  process.kill(chroma!, "SIGSTOP");
  let killed = false;
  try {
    await page.getByRole("button", { name: "Upload and index" }).click();
    const sending = page.getByText(new RegExp(`^Sending files: \\d+ of ${FILES} sent$`));
    await expect(sending).toBeVisible({ timeout: 30_000 });
    const sent = Number((await sending.textContent())!.match(/(\d+) of/)![1]);
    expect(sent).toBeLessThan(FILES);
    // The whole app dies (Chroma with it) and starts again on the same data.
    await app.kill("SIGKILL");
    killed = true;
  } finally {
    if (!killed) process.kill(chroma!, "SIGCONT");
  }
  await app.start(150_000);

  // The page says the upload is gone and how to finish it; the button works again.
  const status = page.getByText(/^The server restarted during this upload and no longer has it/);
  await expect(status).toBeVisible({ timeout: 60_000 });
  await expect(status).toContainText("Upload and index the same files again: those already indexed are recognised and skipped.");
  const button = page.getByRole("button", { name: "Upload and index" });
  await expect(button).toBeEnabled();
  await expect(page.getByRole("list", { name: "Upload progress" })).toHaveCount(0);
  await page.screenshot({ path: "e2e/screenshots/upload-restart.png", fullPage: false });

  // The same selection again: every file ends indexed or already present, none twice.
  await button.click();
  await expect(page.getByTestId("upload-summary")).toHaveText(`${FILES} of ${FILES} files done: ${FILES} indexed or already present`, {
    timeout: 120_000,
  });
  await expect(status).toHaveCount(0);
  const listed = await page.request.get(api(`/api/agents/${agentId}/documents`));
  const docs = (await listed.json()).documents as { filename: string; status: string }[];
  const ready = docs.filter((d) => d.status === "ready").map((d) => d.filename);
  expect(new Set(ready).size).toBe(ready.length);
  expect(ready.sort()).toEqual(files.map((f) => f.name));
});

import { expect, test } from "./fixtures";

const PNG = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 13, 0x49, 0x48, 0x44, 0x52]);

// More files than one request may carry (MAX_FILES_PER_REQUEST, 50 by default) are one upload:
// the page sends them in several requests to one job and shows the progress of the whole.
test("uploads 120 files from the page as one upload in three requests, with one summary and the file that failed", async ({
  page,
  agent,
}) => {
  const files = Array.from({ length: 120 }, (_, i) => ({
    name: `faq-${String(i).padStart(3, "0")}.md`,
    mimeType: "text/markdown",
    buffer: Buffer.from(`# Question ${i}\n\nThe answer to question ${i} is on shelf ${i % 7} of the help desk.`),
  }));
  files[77] = { name: "faq-077.txt", mimeType: "text/plain", buffer: PNG };
  const sends: string[] = [];
  const actions: string[] = [];
  const polls: string[] = [];
  page.on("request", (req) => {
    if (req.method() === "POST" && /\/api\/agents\/\d+\/uploads(\/[^/?]+)?$/.test(req.url())) sends.push(req.url());
    if (req.method() === "POST" && req.headers()["next-action"]) actions.push(req.url());
    if (req.method() === "GET" && req.url().includes("/uploads/")) polls.push(req.url());
  });

  await page.goto(`/agents/${agent.id}`);
  await page.getByLabel("Files").setInputFiles(files);
  await expect(page.getByText("120 files selected")).toBeVisible();
  await page.getByRole("button", { name: "Upload and index" }).click();

  const summary = page.getByTestId("upload-summary");
  await expect(summary).toHaveText("120 of 120 files done: 119 indexed or already present, 1 not indexed (listed below)", {
    timeout: 60_000,
  });
  await expect(page.getByRole("heading", { name: "Upload finished" })).toBeVisible();
  await expect(page.getByRole("progressbar", { name: "Progress of the upload" })).toHaveAttribute("aria-valuenow", "100");
  // Only the file that was not indexed is listed, with its reason.
  const list = page.getByRole("list", { name: "Upload progress" });
  await expect(list.getByRole("listitem")).toHaveCount(1);
  await expect(list.getByRole("listitem")).toHaveText(/^faq-077\.txt: rejected — .*PNG/);
  await page.screenshot({ path: "e2e/screenshots/bulk-upload.png", fullPage: false });
  // Three requests of at most 50 files to the upload API (the upload's start and two more), no
  // more; none through a server action, whose body Next reads before anyone checks the sender.
  expect(sends.length).toBe(3);
  expect(sends[0]).toMatch(/\/uploads$/);
  expect(actions).toEqual([]);
  // Its progress is read without the files already indexed.
  expect(polls.length).toBeGreaterThan(0);
  for (const url of polls) expect(url).toMatch(/\?files=active$/);

  await expect(page.getByRole("heading", { name: "Documents (119)" })).toBeVisible();
  const table = page.getByRole("table", { name: "Documents" });
  await expect(table.getByRole("link", { name: "faq-000.md" })).toBeVisible();
  await expect(table.getByRole("link", { name: "faq-119.md" })).toBeVisible();
  await expect(table.getByRole("link", { name: "faq-077.txt" })).toHaveCount(0);
});

// Requests adding files to one upload at the same time: the job never takes more than it expects.
test("parallel requests adding files to one upload never pass its expected count, over several trials", async ({ page, agent }) => {
  const form = (names: string[], fields: Record<string, string> = {}) => {
    const f = new FormData();
    for (const n of names) f.append("files", new Blob([`# ${n}\n\nWhat the desk says about ${n}.`]), n);
    for (const [k, v] of Object.entries(fields)) f.append(k, v);
    return f;
  };
  for (let trial = 0; trial < 3; trial++) {
    const started = await page.request.fetch(`/api/agents/${agent.id}/uploads`, {
      method: "POST",
      multipart: form([`t${trial}-a.md`], { expected_files: "3" }),
    });
    expect(started.status()).toBe(202);
    const { id } = await started.json();
    // Three requests of one file for two places: exactly one is refused, whichever comes last.
    const parts = [[`t${trial}-b.md`], [`t${trial}-c.md`], [`t${trial}-d.md`]];
    const answers = await Promise.all(
      parts.map((names) => page.request.fetch(`/api/agents/${agent.id}/uploads/${id}`, { method: "POST", multipart: form(names) })),
    );
    const statuses = answers.map((a) => a.status());
    expect(statuses.filter((s) => s === 202).length).toBe(2);
    expect(statuses.filter((s) => s === 422).length).toBe(1);
    await expect
      .poll(async () => (await (await page.request.get(`/api/agents/${agent.id}/uploads/${id}`)).json()).finished, { timeout: 30_000 })
      .toBe(true);
    const job = await (await page.request.get(`/api/agents/${agent.id}/uploads/${id}`)).json();
    expect(job).toMatchObject({ expected_files: 3, files_received: 3, done_files: 3, not_received: 0 });
    const refused = parts[statuses.indexOf(422)];
    expect(job.files.map((f: { filename: string }) => f.filename).sort()).toEqual(
      [`t${trial}-a.md`, ...parts.flat().filter((n) => !refused.includes(n))].sort(),
    );
  }
  const docs = (await (await page.request.get(`/api/agents/${agent.id}/documents`)).json()).documents;
  expect(docs.length).toBe(9);
});

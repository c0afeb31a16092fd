// Sign-in, roles, tokens and request checks against a second instance of the app started
// here with ADMIN_PASSWORD and VIEWER_PASSWORD; the open instance (baseURL) covers the checks
// that hold without a password.
import { spawn, type ChildProcess } from "node:child_process";
import fs from "node:fs";
import http from "node:http";
import os from "node:os";
import path from "node:path";
import AxeBuilder from "@axe-core/playwright";
import type { Browser, Page } from "@playwright/test";
import { deriveSessionKeys, signSession, SESSION_COOKIE } from "../lib/auth/session";
import { expect, test } from "./fixtures";

const PORT = Number(process.env.E2E_AUTH_PORT ?? 3191);
const BASE = `http://127.0.0.1:${PORT}`;
const ADMIN = "e2e admin password";
const VIEWER = "e2e viewer password";

let server: ChildProcess | undefined;
let dataDir = "";
let output = "";

test.describe.configure({ mode: "serial" });

test.beforeAll(async ({}, testInfo) => {
  testInfo.setTimeout(600_000);
  dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "kb-e2e-auth-"));
  server = spawn(process.execPath, ["scripts/start.mjs"], {
    env: {
      ...process.env,
      PORT: String(PORT),
      DATA_DIR: dataDir,
      KB_DEMO: "0",
      ADMIN_PASSWORD: ADMIN,
      VIEWER_PASSWORD: VIEWER,
      NEXT_TELEMETRY_DISABLED: "1",
    },
    // Its own process group, so the launcher, Next and Chroma stop together.
    detached: true,
    stdio: ["ignore", "pipe", "pipe"],
  });
  server.stdout!.on("data", (d) => (output += d));
  server.stderr!.on("data", (d) => (output += d));
  // Waits for the app to answer (a first start builds it), with a deadline inside the hook's
  // timeout only so that a failure shows the launcher's output.
  const deadline = Date.now() + 540_000;
  while (Date.now() < deadline) {
    if (server.exitCode !== null) throw new Error(`the app with a password exited:\n${output}`);
    // A probe that gets no answer counts as "not up yet", so one stuck request cannot use up the wait.
    const ok = await fetch(`${BASE}/api/health`, { signal: AbortSignal.timeout(10_000) }).then(
      (r) => r.ok,
      () => false,
    );
    if (ok) return;
    await new Promise((r) => setTimeout(r, 1000));
  }
  throw new Error(`the app with a password did not answer on ${BASE}:\n${output}`);
});

test.afterAll(async ({}, testInfo) => {
  testInfo.setTimeout(90_000);
  if (server?.pid && server.exitCode === null && server.signalCode === null) {
    const exited = new Promise((r) => server!.once("exit", r));
    process.kill(-server.pid, "SIGTERM");
    // The launcher stops Next, then Chroma, each within its own grace period (about 20 s in all
    // at worst): only past that is its group taken down, whatever already left it.
    await Promise.race([exited, new Promise((r) => setTimeout(r, 30_000))]);
    if (server.exitCode === null && server.signalCode === null) {
      try {
        process.kill(-server.pid, "SIGKILL");
      } catch {
        // ESRCH: the group ended meanwhile.
      }
    }
  }
  // After a forced stop, Chroma (stopped by its own watchdog) may still be closing files in there.
  fs.rmSync(dataDir, { recursive: true, force: true, maxRetries: 10, retryDelay: 200 });
});

/** A new browser context signed in with the password, on the agents page. */
async function signIn(browser: Browser, password: string): Promise<Page> {
  const context = await browser.newContext({ baseURL: BASE });
  const page = await context.newPage();
  await page.goto(`${BASE}/login`);
  await page.waitForFunction(() => document.documentElement.dataset.hydrated === "true");
  await page.getByLabel("Password").fill(password);
  await page.getByRole("button", { name: "Sign in" }).click();
  await expect(page.getByRole("heading", { name: "Agents" })).toBeVisible();
  return page;
}

/** A GET with any Host header (fetch and Playwright keep their own). */
function getWithHost(url: string, host: string): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    http
      .get(url, { headers: { Host: host } }, (res) => {
        let body = "";
        res.on("data", (d) => (body += d));
        res.on("end", () => resolve({ status: res.statusCode!, body }));
      })
      .on("error", reject);
  });
}

test("without a session the API answers 401 and pages go to sign-in; health stays open", async ({ page, request }) => {
  const api = await request.get(`${BASE}/api/agents`);
  expect(api.status()).toBe(401);
  expect((await api.json()).error.code).toBe("unauthorized");
  const post = await request.post(`${BASE}/agents/1/documents/search`, { data: { query: "x" } });
  expect(post.status()).toBe(401);
  const health = await request.get(`${BASE}/api/health`);
  expect(health.status()).toBe(200);
  expect(await health.json()).toEqual({ ok: true }); // no model names or errors before sign-in

  const res = await request.get(`${BASE}/agents/1/search?q=refunds`, { maxRedirects: 0 });
  expect(res.status()).toBe(307);
  expect(res.headers().location).toBe(`/login?next=${encodeURIComponent("/agents/1/search?q=refunds")}`);
  await page.goto(`${BASE}/settings/tokens`);
  await expect(page).toHaveURL(`${BASE}/login?next=%2Fsettings%2Ftokens`);
  await expect(page.getByRole("heading", { name: "Sign in" })).toBeVisible();
});

test("the sign-in page and the signed-in header pass the accessibility check and fit a phone; the icons need no session", async ({
  browser,
  request,
}) => {
  for (const icon of ["/favicon.ico", "/icon.svg"]) {
    const res = await request.get(`${BASE}${icon}`, { maxRedirects: 0 });
    expect(res.status(), icon).toBe(200);
    expect(res.headers()["content-type"], icon).toMatch(/^image\//);
  }
  const context = await browser.newContext({ baseURL: BASE, viewport: { width: 390, height: 844 } });
  const page = await context.newPage();
  const check = async (name: string) => {
    const { violations } = await new AxeBuilder({ page }).analyze();
    const blocking = violations.filter((v) => v.impact === "serious" || v.impact === "critical");
    expect(
      blocking,
      `${name}: ${blocking.map((v) => `${v.id} ${v.help} — ${v.nodes.map((n) => n.target.join(" ")).join(" | ")}`).join("\n")}`,
    ).toEqual([]);
    expect(await page.evaluate(() => document.documentElement.scrollWidth), `${name} is wider than the screen`).toBeLessThanOrEqual(390);
  };
  await page.goto(`${BASE}/login`);
  await page.waitForFunction(() => document.documentElement.dataset.hydrated === "true");
  await expect(page.getByRole("heading", { name: "Sign in" })).toBeVisible();
  await check("sign-in page");
  await page.getByLabel("Password").fill(ADMIN);
  await page.getByRole("button", { name: "Sign in" }).click();
  await expect(page.getByText("Signed in as editor")).toBeVisible();
  await check("agents page signed in");
  await page.screenshot({ path: "e2e/screenshots/narrow-signed-in.png", fullPage: true });
  await context.close();
});

test("a wrong password is refused with a message; the admin password signs in as editor, and out again", async ({ page }) => {
  const cspErrors: string[] = [];
  page.on("console", (m) => {
    if (/Content Security Policy/i.test(m.text())) cspErrors.push(m.text());
  });
  await page.goto(`${BASE}/login?next=/`);
  const password = page.getByLabel("Password");
  await password.fill("not the password");
  await page.getByRole("button", { name: "Sign in" }).click();
  await expect(page.locator("#login-error")).toHaveText("That password is not right.");
  await expect(password).toHaveAccessibleDescription("That password is not right.");
  await expect(page).toHaveURL(/\/login/);

  await password.fill(ADMIN);
  await page.getByRole("button", { name: "Sign in" }).click();
  await expect(page.getByRole("heading", { name: "Agents" })).toBeVisible();
  await expect(page.getByText("Signed in as editor")).toBeVisible();
  await expect(page.getByRole("link", { name: "API tokens" })).toBeVisible();
  const cookie = (await page.context().cookies()).find((c) => c.name === SESSION_COOKIE)!;
  expect(cookie).toMatchObject({ httpOnly: true, sameSite: "Lax", secure: false, path: "/" });
  expect((await page.request.get(`${BASE}/api/agents`)).status()).toBe(200);
  // The page hydrated under the policy, and nothing was blocked.
  await page.getByLabel("New agent name").fill(`Signed-in agent ${Date.now()}`);
  await page.getByRole("button", { name: "Create agent" }).click();
  await expect(page).toHaveURL(/\/agents\/\d+$/);
  expect(cspErrors).toEqual([]);

  await page.getByRole("button", { name: "Sign out" }).click();
  await expect(page).toHaveURL(`${BASE}/login`);
  expect((await page.request.get(`${BASE}/api/agents`)).status()).toBe(401);
});

test("a viewer can search and inspect but is refused uploads, writes and the token page", async ({ browser }) => {
  const editor = await signIn(browser, ADMIN);
  const name = `Viewer test ${Date.now()}`;
  const created = await editor.request.post(`${BASE}/api/agents`, { data: { name } });
  expect(created.status()).toBe(201);
  const { id } = await created.json();
  const upload = await editor.request.post(`${BASE}/api/agents/${id}/documents`, {
    multipart: {
      files: {
        name: "sla.md",
        mimeType: "text/markdown",
        buffer: Buffer.from("# Support SLA\n\nPremium customers get an answer within four hours.\n"),
      },
    },
  });
  expect(upload.status()).toBe(201);

  const viewer = await signIn(browser, VIEWER);
  await expect(viewer.getByText("Signed in as viewer")).toBeVisible();
  await expect(viewer.getByRole("link", { name: "API tokens" })).toHaveCount(0);

  const refused = await viewer.request.post(`${BASE}/api/agents/${id}/documents`, {
    multipart: { files: { name: "more.md", mimeType: "text/markdown", buffer: Buffer.from("# More\n\nText.\n") } },
  });
  expect(refused.status()).toBe(403);
  expect((await refused.json()).error).toEqual({
    code: "forbidden",
    message: "This needs the editor role; you are signed in as a viewer.",
  });
  expect((await viewer.request.delete(`${BASE}/api/agents/${id}`)).status()).toBe(403);

  const search = await viewer.request.post(`${BASE}/agents/${id}/documents/search`, { data: { query: "support SLA", top_k: 3 } });
  expect(search.status()).toBe(200);
  expect((await search.json()).results[0].filename).toBe("sla.md");
  expect((await viewer.request.post(`${BASE}/api/agents/${id}/documents/search`, { data: { query: "SLA" } })).status()).toBe(200);
  expect((await viewer.request.post(`${BASE}/api/agents/${id}/evals`, { data: { k: 3 } })).status()).not.toBe(403);

  // A server action checks the role itself: the viewer's "Create agent" creates nothing.
  await viewer.goto(`${BASE}/`);
  await viewer.waitForFunction(() => document.documentElement.dataset.hydrated === "true");
  await viewer.getByLabel("New agent name").fill(`${name} by viewer`);
  await viewer.getByRole("button", { name: "Create agent" }).click();
  await expect(viewer.getByRole("heading", { name: "This page could not be shown" })).toBeVisible();
  const names = (await (await viewer.request.get(`${BASE}/api/agents`)).json()).agents.map((a: { name: string }) => a.name);
  expect(names).toContain(name);
  expect(names).not.toContain(`${name} by viewer`);

  await viewer.goto(`${BASE}/settings/tokens`);
  await expect(viewer.getByText("API tokens are managed by editors; you are signed in as a viewer.")).toBeVisible();
  await expect(viewer.getByRole("button", { name: "Create token" })).toHaveCount(0);

  await editor.request.delete(`${BASE}/api/agents/${id}`);
  await editor.context().close();
  await viewer.context().close();
});

test("a token created in the UI works as a bearer token with its role, until it is revoked", async ({ browser, playwright }) => {
  const editor = await signIn(browser, ADMIN);
  await editor.getByRole("link", { name: "API tokens" }).click();
  await expect(editor.getByRole("heading", { name: "API tokens" })).toBeVisible();
  const tokenName = `CI gate ${Date.now()}`;
  await editor.getByLabel("Token name").fill(tokenName);
  await editor.getByLabel("Role").selectOption("viewer");
  await editor.getByRole("button", { name: "Create token" }).click();
  const shown = editor.getByRole("textbox", { name: "New token" });
  await expect(shown).toHaveValue(/^kbi_/);
  const token = await shown.inputValue();
  await expect(editor.getByRole("row", { name: new RegExp(tokenName) })).toContainText("active");

  // A script: no cookies, no Origin.
  const script = await playwright.request.newContext({ extraHTTPHeaders: { Authorization: `Bearer ${token}` } });
  expect((await script.get(`${BASE}/api/agents`)).status()).toBe(200);
  const write = await script.post(`${BASE}/api/agents`, { data: { name: `by token ${Date.now()}` } });
  expect(write.status()).toBe(403);
  expect((await write.json()).error.message).toMatch(/needs the editor role/);
  const wrong = await playwright.request.newContext({ extraHTTPHeaders: { Authorization: `Bearer ${token}x` } });
  expect((await wrong.get(`${BASE}/api/agents`)).status()).toBe(401);

  await editor.reload();
  editor.once("dialog", (d) => d.accept());
  await editor.getByRole("button", { name: `Revoke ${tokenName}` }).click();
  await expect(editor.getByRole("row", { name: new RegExp(tokenName) })).toContainText("revoked");
  const after = await script.get(`${BASE}/api/agents`);
  expect(after.status()).toBe(401);
  expect((await after.json()).error.code).toBe("unauthorized");
  await script.dispose();
  await wrong.dispose();
  await editor.context().close();
});

test("an expired session sends pages back to sign-in and API calls to 401", async ({ browser }) => {
  const keys = deriveSessionKeys(fs.readFileSync(path.join(dataDir, "session-salt")), ADMIN, VIEWER);
  const maxAge = 12 * 3600;
  const context = await browser.newContext({ baseURL: BASE });
  const cookie = async (value: string) => {
    await context.clearCookies();
    await context.addCookies([{ name: SESSION_COOKIE, value, domain: "127.0.0.1", path: "/", httpOnly: true, sameSite: "Lax" }]);
  };
  // A cookie signed the same way now is accepted, so the refusal below is down to its age.
  await cookie(await signSession("editor", keys, maxAge));
  expect((await context.request.get(`${BASE}/api/agents`)).status()).toBe(200);

  await cookie(await signSession("editor", keys, maxAge, Date.now() - 13 * 3600_000));
  const page = await context.newPage();
  await page.goto(`${BASE}/agents/1/eval`);
  await expect(page).toHaveURL(`${BASE}/login?next=%2Fagents%2F1%2Feval`);
  await expect(page.getByRole("heading", { name: "Sign in" })).toBeVisible();
  await cookie(await signSession("editor", keys, maxAge, Date.now() - 13 * 3600_000));
  const api = await context.request.get(`${BASE}/api/agents`);
  expect(api.status()).toBe(401);
  expect((await api.json()).error.code).toBe("unauthorized");
  await context.close();
});

test("cross-origin writes and unknown Host headers are refused, with and without a password", async ({ request, baseURL }) => {
  // The open app (no password).
  const name = `Cross-origin ${Date.now()}`;
  const evil = await request.post("/api/agents", {
    headers: { Origin: "http://evil.example", "Content-Type": "text/plain" },
    data: JSON.stringify({ name }),
  });
  expect(evil.status()).toBe(403);
  expect((await evil.json()).error.code).toBe("forbidden_origin");
  const viaReferer = await request.post("/api/agents", { headers: { Referer: "http://evil.example/page" }, data: { name } });
  expect(viaReferer.status()).toBe(403);
  const list = await (await request.get("/api/agents")).json();
  expect(list.agents.map((a: { name: string }) => a.name)).not.toContain(name);
  const open = new URL(baseURL!);
  const ok = await request.post("/api/agents", { headers: { Origin: open.origin }, data: { name } });
  expect(ok.status()).toBe(201);
  await request.delete(`/api/agents/${(await ok.json()).id}`);

  const rebound = await getWithHost(`${open.origin}/api/agents`, `evil.example:${open.port}`);
  expect(rebound.status).toBe(403);
  expect(JSON.parse(rebound.body).error.code).toBe("forbidden_host");
  expect((await getWithHost(`${open.origin}/api/health`, `localhost:${open.port}`)).status).toBe(200);

  // The app with a password: refused before any sign-in check.
  const evilLocked = await request.post(`${BASE}/api/agents`, { headers: { Origin: "http://evil.example" }, data: { name } });
  expect(evilLocked.status()).toBe(403);
  expect((await evilLocked.json()).error.code).toBe("forbidden_origin");
  expect((await getWithHost(`${BASE}/login`, "evil.example")).status).toBe(403);
});

test("every response carries the security headers and no X-Powered-By", async ({ request }) => {
  for (const url of ["/", "/api/agents", `${BASE}/login`, `${BASE}/api/agents`]) {
    const res = await request.get(url, { maxRedirects: 0 });
    const h = res.headers();
    expect(h["content-security-policy"], url).toContain("default-src 'self'");
    expect(h["content-security-policy"], url).toContain("frame-ancestors 'none'");
    expect(h["content-security-policy"], url).toContain("object-src 'none'");
    expect(h["content-security-policy"], url).toContain("base-uri 'self'");
    expect(h["x-content-type-options"], url).toBe("nosniff");
    expect(h["referrer-policy"], url).toBe("same-origin");
    expect(h["x-frame-options"], url).toBe("DENY");
    expect(h["x-powered-by"], url).toBeUndefined();
  }
});

// Ways around the access rules, tried against the running app: forwarding headers, rotated
// client addresses, oversized bodies before sign-in, redirects off-site, malformed and copied
// session cookies, and what the sign-in page tells an anonymous visitor.
import http from "node:http";
import { SESSION_COOKIE } from "../lib/auth/session";
import { AppInstance } from "./app-instance";
import { expect, test } from "./fixtures";

const PORT = Number(process.env.E2E_ACCESS_PORT ?? 3193);
const ADMIN = "e2e access admin password";

interface Answer {
  status: number;
  headers: http.IncomingHttpHeaders;
  body: string;
}

/** A request straight from Node, from a chosen loopback address (the browser always uses 127.0.0.1). */
function send(
  url: string,
  opts: { method?: string; headers?: Record<string, string>; body?: Buffer | string; localAddress?: string } = {},
): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const req = http.request(url, { method: opts.method ?? "GET", headers: opts.headers, localAddress: opts.localAddress }, (res) => {
      let body = "";
      res.setEncoding("utf8");
      res.on("data", (d) => (body += d));
      res.on("end", () => resolve({ status: res.statusCode!, headers: res.headers, body }));
    });
    req.on("error", reject);
    req.end(opts.body);
  });
}

const unescape = (s: string) =>
  s
    .replace(/&quot;/g, '"')
    .replace(/&#x27;/g, "'")
    .replace(/&lt;/g, "<")
    .replace(/&gt;/g, ">")
    .replace(/&amp;/g, "&");

/**
 * Signs in the way a browser without JavaScript does: the sign-in page's form, posted as
 * multipart with its hidden fields. Answers the page's message, or the session cookie.
 */
async function signInFrom(base: string, password: string, opts: { localAddress?: string; forwardedFor?: string } = {}) {
  const page = await send(`${base}/login`, { localAddress: opts.localAddress });
  expect(page.status).toBe(200);
  const form = new FormData();
  for (const m of page.body.matchAll(/<input type="hidden" name="([^"]+)"(?: value="([^"]*)")?\/?>/g))
    form.append(unescape(m[1]), unescape(m[2] ?? ""));
  form.set("password", password);
  const encoded = new Response(form);
  const res = await send(`${base}/login`, {
    method: "POST",
    localAddress: opts.localAddress,
    headers: {
      "content-type": encoded.headers.get("content-type")!,
      origin: base,
      ...(opts.forwardedFor ? { "x-forwarded-for": opts.forwardedFor } : {}),
    },
    body: Buffer.from(await encoded.arrayBuffer()),
  });
  const cookie = [res.headers["set-cookie"] ?? []].flat().find((c) => c.startsWith(`${SESSION_COOKIE}=`));
  const message = /Too many failed sign-ins[^<]*|That password is not right\./.exec(res.body)?.[0] ?? null;
  return { status: res.status, cookie: cookie?.split(";")[0] ?? null, message };
}

test.describe("with sign-in off", () => {
  test("the app answers only requests made on this machine straight to it, and says to set ADMIN_PASSWORD", async ({ baseURL }) => {
    expect((await send(`${baseURL}/api/agents`)).status).toBe(200);
    for (const header of ["X-Forwarded-For", "Forwarded", "X-Real-IP"]) {
      const value = header === "Forwarded" ? "for=127.0.0.1" : "127.0.0.1";
      for (const path of ["/api/agents", "/", "/api/health"]) {
        const res = await send(`${baseURL}${path}`, { headers: { [header]: value } });
        expect(res.status, `${header} on ${path}`).toBe(403);
        expect(JSON.parse(res.body).error).toMatchObject({ code: "sign_in_required", message: expect.stringContaining("ADMIN_PASSWORD") });
      }
    }
    // The routes that run the checks themselves (uploads, the agent's search) refuse it too.
    const search = await send(`${baseURL}/agents/1/documents/search`, {
      method: "POST",
      headers: { "content-type": "application/json", "x-forwarded-for": "127.0.0.1" },
      body: JSON.stringify({ query: "support SLA" }),
    });
    expect(search.status).toBe(403);
    // A proxy that adds no forwarding header (nginx's default rewrites Host): the app's own pages still name the public host.
    const viaPage = await send(`${baseURL}/api/agents`, { headers: { referer: "https://kb.example.com/agents" } });
    expect(viaPage.status).toBe(403);
    expect(JSON.parse(viaPage.body).error).toMatchObject({ code: "sign_in_required", message: expect.stringContaining("Referer") });
  });

  test("a path whose escapes would route it otherwise than it reads is refused", async ({ baseURL }) => {
    const res = await send(`${baseURL}/%61pi/agents`, {
      method: "POST",
      headers: { "content-type": "application/json", "next-action": "x" },
      body: "{}",
    });
    expect(res.status).toBe(400);
    expect(JSON.parse(res.body).error.code).toBe("invalid_path");
  });

  test("a body larger than 1 MB is refused outside the upload routes, before it is read", async ({ baseURL }) => {
    for (const path of ["/", "/login", "/api/agents"]) {
      const res = await send(`${baseURL}${path}`, {
        method: "POST",
        headers: { "content-type": "application/x-www-form-urlencoded", "next-action": "0".repeat(40) },
        body: Buffer.alloc(2 * 1024 * 1024, "a"),
      });
      expect(res.status, path).toBe(413);
      expect(JSON.parse(res.body).error.code).toBe("request_too_large");
    }
  });
});

test.describe("with sign-in on", () => {
  test.describe.configure({ mode: "serial" });
  // Chroma is not reachable (nothing listens on port 9), so the health check has errors to hide.
  const app = new AppInstance(PORT, { ADMIN_PASSWORD: ADMIN, CHROMA_URL: "http://127.0.0.1:9", CHROMA_TIMEOUT_MS: "2000" });

  test.beforeAll(async ({}, testInfo) => {
    testInfo.setTimeout(600_000);
    await app.start(540_000, { answering: true });
  });
  test.afterAll(async () => {
    await app.stop();
    app.remove();
  });

  test("the sign-in page shows an anonymous visitor no health details; a signed-in one sees them", async ({ browser }) => {
    const login = await send(`${app.url}/login`);
    expect(login.status).toBe(200);
    expect(login.body).not.toMatch(/Chroma|127\.0\.0\.1:9|not reachable/);
    const health = await send(`${app.url}/api/health`);
    expect(JSON.parse(health.body)).toEqual({ ok: false });

    const context = await browser.newContext({ baseURL: app.url });
    const page = await context.newPage();
    await page.goto(`${app.url}/login`);
    await expect(page.getByRole("heading", { name: "Sign in" })).toBeVisible();
    // (Next's route announcer is an empty alert on every page.)
    await expect(page.getByRole("alert").filter({ hasText: /\S/ })).toHaveCount(0);
    await expect(page.getByText(/Chroma/)).toHaveCount(0);
    await page.getByLabel("Password").fill(ADMIN);
    await page.getByRole("button", { name: "Sign in" }).click();
    await expect(page.getByRole("heading", { name: "Agents" })).toBeVisible();
    await expect(page.getByRole("alert").filter({ hasText: /Chroma/ })).toBeVisible();
    await context.close();
  });

  test("a signed-in visitor sent to /login?next=/.//elsewhere stays on this app", async ({ browser }) => {
    const { cookie } = await signInFrom(app.url, ADMIN);
    expect(cookie).not.toBeNull();
    for (const next of ["/.//evil.example", "/..//evil.example/x", "//evil.example"]) {
      const res = await send(`${app.url}/login?next=${encodeURIComponent(next)}`, { headers: { cookie: cookie! } });
      expect(res.status, next).toBe(307);
      expect(new URL(res.headers.location!, app.url).origin, next).toBe(app.url);
    }
    const context = await browser.newContext({ baseURL: app.url });
    await context.addCookies([{ name: SESSION_COOKIE, value: cookie!.split("=")[1], url: app.url }]);
    const page = await context.newPage();
    await page.goto(`${app.url}/login?next=${encodeURIComponent("/.//evil.example")}`);
    await expect(page.getByRole("heading", { name: "Agents" })).toBeVisible();
    expect(new URL(page.url()).origin).toBe(app.url);
    await context.close();
  });

  test("a malformed session cookie counts as signed out; a signed-out session stays out, even from a copy of its cookie", async ({
    browser,
  }) => {
    for (const value of ["%E0%A4%A", "%", "eyJ.broken"]) {
      const page = await send(`${app.url}/agents/1`, { headers: { cookie: `${SESSION_COOKIE}=${value}` } });
      expect(page.status, value).toBe(307);
      expect(page.headers.location).toContain("/login");
      expect((await send(`${app.url}/api/agents`, { headers: { cookie: `${SESSION_COOKIE}=${value}` } })).status, value).toBe(401);
    }

    const context = await browser.newContext({ baseURL: app.url });
    const page = await context.newPage();
    await page.goto(`${app.url}/login`);
    await page.getByLabel("Password").fill(ADMIN);
    await page.getByRole("button", { name: "Sign in" }).click();
    await expect(page.getByRole("heading", { name: "Agents" })).toBeVisible();
    const copy = (await context.cookies()).find((c) => c.name === SESSION_COOKIE)!;
    const withCopy = { headers: { cookie: `${SESSION_COOKIE}=${copy.value}` } };
    expect((await send(`${app.url}/api/agents`, withCopy)).status).toBe(200);
    await page.getByRole("button", { name: "Sign out" }).click();
    await expect(page).toHaveURL(`${app.url}/login`);
    expect((await send(`${app.url}/api/agents`, withCopy)).status).toBe(401);
    await context.close();
  });

  test("a body larger than 1 MB before sign-in is refused, not read", async () => {
    const res = await send(`${app.url}/login`, {
      method: "POST",
      headers: { "content-type": "multipart/form-data; boundary=x", "next-action": "0".repeat(40) },
      body: Buffer.alloc(2 * 1024 * 1024, "a"),
    });
    expect(res.status).toBe(413);
  });

  // Last: it leaves 127.0.0.1 locked out of signing in on this instance.
  test("a client that rotates X-Forwarded-For is still throttled, and cannot lock out a client at another address", async () => {
    const answers: (string | null)[] = [];
    // Each failure past the fifth locks the client twice as long (1 s, 2 s, 4 s ...): well before
    // the twelfth attempt one lands inside a lock, however slowly they are sent.
    for (let i = 0; i < 12 && !answers.some((m) => m?.startsWith("Too many")); i++) {
      const r = await signInFrom(app.url, "not the password", { forwardedFor: `198.51.100.${i + 1}` });
      expect(r.cookie).toBeNull();
      answers.push(r.message);
    }
    expect(answers.slice(0, 5)).toEqual(Array(5).fill("That password is not right."));
    expect(answers.at(-1)).toMatch(/^Too many failed sign-ins/);
    // Thirty more failures at once, as a shared count would have locked everyone out after.
    await Promise.all(Array.from({ length: 30 }, (_, i) => signInFrom(app.url, "still not it", { forwardedFor: `203.0.113.${i + 1}` })));

    // Another machine (here another loopback address) signs in at once.
    const admin = await signInFrom(app.url, ADMIN, { localAddress: "127.0.0.2" });
    expect(admin.message).toBeNull();
    expect(admin.cookie).not.toBeNull();
    expect((await send(`${app.url}/api/agents`, { headers: { cookie: admin.cookie! } })).status).toBe(200);
  });
});

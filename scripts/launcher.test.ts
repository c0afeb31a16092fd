import { spawn } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { freePort } from "./chroma-server.mjs";
import { accessRefusal, isLoopbackHost, localUrl, nextArgs } from "./launch-options.mjs";
import { DEMO_SEED_FILE } from "./demo-seed.mjs";

describe("the launcher's options", () => {
  it("knows which addresses are loopback", () => {
    for (const host of ["127.0.0.1", "127.1.2.3", "::1", "[::1]", "localhost", "LOCALHOST"]) expect(isLoopbackHost(host)).toBe(true);
    for (const host of ["0.0.0.0", "::", "192.168.1.10", "10.0.0.1", "example.com", "127.0.0.1.example.com"]) {
      expect(isLoopbackHost(host)).toBe(false);
    }
  });

  it("refuses a non-loopback HOST without ADMIN_PASSWORD, and says what to set", () => {
    expect(accessRefusal({ HOST: "127.0.0.1" })).toBeNull();
    expect(accessRefusal({ HOST: "0.0.0.0", ADMIN_PASSWORD: "a long secret" })).toBeNull();
    const refusal = accessRefusal({ HOST: "0.0.0.0" })!;
    expect(refusal).toMatch(/HOST=0\.0\.0\.0/);
    expect(refusal).toMatch(/ADMIN_PASSWORD/);
  });

  it("binds next to HOST, and reaches it locally", () => {
    expect(nextArgs({ dev: false, port: 3000, host: "127.0.0.1" })).toEqual(["start", "-p", "3000", "-H", "127.0.0.1"]);
    expect(nextArgs({ dev: true, port: 4000, host: "0.0.0.0" })).toEqual(["dev", "-p", "4000", "-H", "0.0.0.0"]);
    expect(localUrl({ host: "0.0.0.0", port: 3000 })).toBe("http://127.0.0.1:3000");
    expect(localUrl({ host: "::", port: 3000 })).toBe("http://[::1]:3000");
    expect(localUrl({ host: "10.1.2.3", port: 80 })).toBe("http://10.1.2.3:80");
  });
});

/**
 * The launcher runs from a scratch copy of scripts/ and the lib/ modules it imports, so that whatever it
 * would build or start happens there (a build of an empty project), never in this tree.
 */
const roots: string[] = [];
afterAll(() => {
  for (const root of roots) fs.rmSync(root, { recursive: true, force: true });
});

function scratchRoot() {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), "kb-launcher-"));
  roots.push(root);
  const here = path.resolve(import.meta.dirname, "..");
  fs.cpSync(path.join(here, "scripts"), path.join(root, "scripts"), { recursive: true, filter: (p) => !p.endsWith(".test.ts") });
  fs.mkdirSync(path.join(root, "lib"));
  fs.copyFileSync(path.join(here, "lib", "env.mjs"), path.join(root, "lib", "env.mjs"));
  fs.mkdirSync(path.join(root, "lib", "auth"));
  fs.copyFileSync(path.join(here, "lib", "auth", "start-warning.mjs"), path.join(root, "lib", "auth", "start-warning.mjs"));
  fs.mkdirSync(path.join(root, "lib", "extract"));
  fs.copyFileSync(path.join(here, "lib", "extract", "ocr-languages.mjs"), path.join(root, "lib", "extract", "ocr-languages.mjs"));
  fs.symlinkSync(path.join(here, "node_modules"), path.join(root, "node_modules"));
  return root;
}

/** Processes whose command line mentions `dir` (the build and its watchdog, if left behind). */
function processesUnder(dir: string) {
  return fs
    .readdirSync("/proc")
    .filter((p) => /^\d+$/.test(p))
    .flatMap((p) => {
      try {
        const cmd = fs.readFileSync(`/proc/${p}/cmdline`, "utf8").replaceAll("\0", " ");
        const state = fs.readFileSync(`/proc/${p}/stat`, "utf8").split(") ")[1]?.[0];
        return cmd.includes(dir) && state !== "Z" ? [cmd] : [];
      } catch {
        return [];
      }
    });
}

async function launch(vars: Record<string, string>, { stopWhen }: { stopWhen?: RegExp } = {}) {
  const root = scratchRoot();
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    DATA_DIR: path.join(root, "data"),
    PORT: String(await freePort()),
    KB_DEMO: "0",
    ...vars,
  };
  delete env.CHROMA_URL;
  if (!("ADMIN_PASSWORD" in vars)) delete env.ADMIN_PASSWORD;
  const child = spawn(process.execPath, [path.join(root, "scripts", "start.mjs")], { env, stdio: ["ignore", "pipe", "pipe"] });
  let stdout = "";
  let stderr = "";
  let signalled = false;
  child.stdout.on("data", (d) => {
    stdout += d;
    if (!signalled && stopWhen?.test(stdout)) signalled = child.kill("SIGTERM");
  });
  child.stderr.on("data", (d) => (stderr += d));
  const code = await new Promise<number | null>((resolve) => child.on("exit", (c) => resolve(c)));
  return { code, stdout, stderr, root };
}

describe("npm start", () => {
  it("refuses a non-loopback HOST without ADMIN_PASSWORD before building anything (exit 1)", async () => {
    // It exits on its own (a launcher that went on would build, or wait, until the test's timeout).
    const { code, stdout, stderr, root } = await launch({ HOST: "0.0.0.0" });
    expect(code).toBe(1);
    expect(stderr).toMatch(/Refusing to start: HOST=0\.0\.0\.0/);
    expect(stderr).toMatch(/Set ADMIN_PASSWORD/);
    expect(stdout).not.toMatch(/building/);
    expect(fs.existsSync(path.join(root, ".next"))).toBe(false);
    expect(fs.existsSync(path.join(root, "data"))).toBe(false);
  });

  it("refuses an OCR language whose data package is not installed, naming the package, before building anything (exit 1)", async () => {
    const { code, stdout, stderr, root } = await launch({ OCR_LANGUAGES: "eng+xyz" });
    expect(code).toBe(1);
    expect(stderr).toContain(
      'OCR_LANGUAGES is "eng+xyz", but @tesseract.js-data/xyz is not installed: run npm install @tesseract.js-data/xyz',
    );
    expect(stdout).not.toMatch(/building/);
    expect(fs.existsSync(path.join(root, ".next"))).toBe(false);
  });

  it("goes on with a password, and a SIGTERM during the build stops it and exits 0", async () => {
    const { code, stdout, stderr, root } = await launch(
      { HOST: "0.0.0.0", ADMIN_PASSWORD: "correct horse battery" },
      { stopWhen: /building the app/ },
    );
    expect(stderr).not.toMatch(/Refusing/);
    expect(stdout).toMatch(/building the app/);
    expect(stdout).toMatch(/SIGTERM: stopping/);
    expect(code).toBe(0);
    // The build's own helpers get their SIGKILL as the launcher exits; they are gone once the kernel has ended them.
    await expect.poll(() => processesUnder(root), { timeout: 60_000 }).toEqual([]);
  });

  it("says the demo agent is owed before the server starts on a first start, so health answers starting from its first answer", async () => {
    const { code, stdout, root } = await launch({ KB_DEMO: "1" }, { stopWhen: /building the app/ });
    expect(code).toBe(0);
    expect(JSON.parse(fs.readFileSync(path.join(root, "data", DEMO_SEED_FILE), "utf8"))).toEqual({ agent_id: null });
    expect(stdout).not.toMatch(/serving the app/);
  });

  it("owes no demo agent when ADMIN_PASSWORD is set", async () => {
    const { root } = await launch({ KB_DEMO: "1", ADMIN_PASSWORD: "correct horse battery" }, { stopWhen: /building the app/ });
    expect(fs.existsSync(path.join(root, "data", DEMO_SEED_FILE))).toBe(false);
  });
});

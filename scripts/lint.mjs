// `npm run lint`: ESLint and Prettier's check side by side (each uses one core; one after the
// other they took about two minutes of the test run on two cores). Each one's output is printed
// whole when it ends, so the two do not interleave; the exit code is non-zero when either fails.
import { spawn } from "node:child_process";
import path from "node:path";

const root = path.resolve(import.meta.dirname, "..");
const bin = (pkg, file) => path.join(root, "node_modules", pkg, file);

function run(name, args) {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, args, { cwd: root, stdio: ["ignore", "pipe", "pipe"] });
    const out = [];
    child.stdout.on("data", (d) => out.push(d));
    child.stderr.on("data", (d) => out.push(d));
    child.on("error", (err) => resolve({ name, code: 1, text: `${name} did not start: ${err.message}\n` }));
    child.on("close", (code, signal) => resolve({ name, code: code ?? 1, signal, text: Buffer.concat(out).toString() }));
  });
}

const results = await Promise.all([
  run("eslint", [bin("eslint", "bin/eslint.js"), "."]),
  run("prettier", [bin("prettier", "bin/prettier.cjs"), "--check", "."]),
]);
for (const r of results) {
  process.stdout.write(`> ${r.name}\n${r.text}`);
  if (r.code !== 0) console.error(`${r.name} failed (${r.signal ?? `exit ${r.code}`})`);
}
process.exit(results.some((r) => r.code !== 0) ? 1 : 0);

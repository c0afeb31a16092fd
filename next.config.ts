import type { NextConfig } from "next";
import { parseEnv, SMALL_BODY_BYTES } from "./lib/env.mjs";

// Next's inline bootstrap scripts and React's style attributes need 'unsafe-inline';
// `next dev` also evaluates code for its overlay.
const dev = process.env.NODE_ENV === "development";
const contentSecurityPolicy = [
  "default-src 'self'",
  `script-src 'self' 'unsafe-inline'${dev ? " 'unsafe-eval'" : ""}`,
  "style-src 'self' 'unsafe-inline'",
  "img-src 'self' data: blob:",
  "font-src 'self' data:",
  "connect-src 'self'",
  "frame-ancestors 'none'",
  "object-src 'none'",
  "base-uri 'self'",
  "form-action 'self'",
].join("; ");

const securityHeaders = [
  { key: "Content-Security-Policy", value: contentSecurityPolicy },
  { key: "X-Content-Type-Options", value: "nosniff" },
  { key: "Referrer-Policy", value: "same-origin" },
  { key: "X-Frame-Options", value: "DENY" },
];

// Hosts of ALLOWED_ORIGINS, for Next's own origin check of server actions (behind a proxy
// that rewrites Host, the public origin is listed there).
const allowedOriginHosts = (parseEnv().ALLOWED_ORIGINS ?? "").split(",").flatMap((o) => {
  try {
    return [new URL(o.trim()).host];
  } catch {
    return [];
  }
});

const nextConfig: NextConfig = {
  // Native and server-side packages stay in node_modules rather than in the bundle.
  // OCR's engine (WebAssembly loaded from its own folder) and the canvas that renders scanned PDF
  // pages (a native addon) are loaded by the extraction worker, outside the bundle; listed so that
  // an import from server code never pulls them in.
  serverExternalPackages: ["better-sqlite3", "chromadb", "unpdf", "tesseract.js", "@napi-rs/canvas"],
  poweredByHeader: false,
  // The agent's search is a pages API route (pages/api): bundled like the app routes, so that
  // its lib/ modules' `import "server-only"` resolves as Next resolves it for server code
  // instead of being loaded from node_modules at run time, where it throws.
  bundlePagesRouterDependencies: true,
  experimental: {
    // Next reads these bodies before the proxy or the action can check who sent them, so they
    // stay small; files go to the upload routes, which the proxy leaves out (see proxy.ts).
    serverActions: { bodySizeLimit: SMALL_BODY_BYTES, allowedOrigins: allowedOriginHosts },
    proxyClientMaxBodySize: SMALL_BODY_BYTES,
    // Turbopack keeps its work in .next/cache so that a rebuild after a change is quicker; a
    // build that is never repeated (CI's fresh clone: .ci/run) skips writing it, about 20 s.
    turbopackFileSystemCacheForBuild: process.env.KB_BUILD_CACHE !== "0",
  },
  async headers() {
    return [{ source: "/:path*", headers: securityHeaders }];
  },
  async rewrites() {
    return {
      // The original path of the search endpoint, kept for existing clients. Before the
      // filesystem, so the document page at /agents/[id]/documents/[docId] never takes it.
      beforeFiles: [
        { source: "/agents/:id/documents/search", destination: "/api/agents/:id/documents/search" },
        { source: "/agents/:id/ask", destination: "/api/agents/:id/ask" },
      ],
      afterFiles: [],
      fallback: [],
    };
  },
};

export default nextConfig;

import type { NextConfig } from "next";
import { parseEnv } from "./lib/env.mjs";

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
  serverExternalPackages: ["better-sqlite3", "chromadb", "unpdf"],
  poweredByHeader: false,
  // The agent's search is a pages API route (pages/api): bundled like the app routes, so that
  // its lib/ modules' `import "server-only"` resolves as Next resolves it for server code
  // instead of being loaded from node_modules at run time, where it throws.
  bundlePagesRouterDependencies: true,
  experimental: {
    // `next start` reads this file again, so the page's uploads follow MAX_REQUEST_BYTES without a rebuild.
    serverActions: { bodySizeLimit: parseEnv().MAX_REQUEST_BYTES, allowedOrigins: allowedOriginHosts },
    // The proxy sees every request and buffers its body up to this size: anything past it
    // would reach uploads cut short, so it follows MAX_REQUEST_BYTES.
    proxyClientMaxBodySize: parseEnv().MAX_REQUEST_BYTES + 1024 * 1024,
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

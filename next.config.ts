import type { NextConfig } from "next";

const nextConfig: NextConfig = {
  // Native and server-side packages stay in node_modules rather than in the bundle.
  serverExternalPackages: ["better-sqlite3", "chromadb", "unpdf", "mammoth"],
  experimental: {
    serverActions: { bodySizeLimit: "100mb" },
  },
};

export default nextConfig;

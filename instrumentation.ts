// Runs once when the server starts: the background services (lib/runtime/services.ts), Node.js runtime only.
export async function register() {
  if (process.env.NEXT_RUNTIME !== "nodejs") return;
  const { startServices } = await import("./lib/runtime/services");
  startServices();
}

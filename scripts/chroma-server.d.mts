export function freePort(): Promise<number>;
export function waitForHeartbeat(url: string, timeoutMs?: number, isDead?: () => boolean): Promise<void>;
export function startChroma(opts: {
  dataDir: string;
  port?: number;
  log?: (msg: string) => void;
  restart?: boolean;
}): Promise<{ url: string; port: number; stop: () => Promise<void>; pid: () => number | undefined }>;

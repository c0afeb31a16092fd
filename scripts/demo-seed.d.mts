export const DEMO_EVAL_K: number;
export const DEMO_AGENT_NAME: string;
export const DEMO_SEED_FILE: string;
export function demoArticles(dir: string): string[];
export function readDemoSeed(dataDir: string): { agent_id: number | null; failed?: string } | null;
export function planDemoSeed(opts: {
  dataDir: string;
  firstStart: boolean;
  demo: boolean;
  signedIn: boolean;
}): "seed" | "signed-in" | "none";
export function seedDemo(opts: {
  base: string;
  demoDir: string;
  dataDir: string;
  log: (msg: string) => void;
  hold?: (stage: "agent created") => Promise<void>;
}): Promise<void>;

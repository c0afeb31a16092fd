export interface Exit {
  code: number | null;
  signal: string | null;
  error?: string;
}
type Output = "inherit" | "ignore" | number;
interface SpawnOptions {
  cwd?: string;
  env?: NodeJS.ProcessEnv;
  stdout?: Output;
  stderr?: Output;
  graceMs?: number;
}
export function describeExit(exit: Exit): string;
export function spawnWatched(
  command: string,
  args: string[],
  opts?: SpawnOptions,
): { pid: () => number | undefined; closed: Promise<Exit>; stop: () => Promise<Exit> };
export function supervise(
  opts: SpawnOptions & {
    name: string;
    command: string;
    args: string[];
    log?: (msg: string) => void;
    maxCrashes?: number;
    windowMs?: number;
    backoffMs?: number;
    onGiveUp?: (exit: Exit) => void;
  },
): { pid: () => number | undefined; starts: () => number; stop: () => Promise<void> };
export function stopOnSignals(
  stoppables: () => Array<{ stop: () => Promise<unknown> } | null | undefined>,
  log?: (msg: string) => void,
): { stopping: () => boolean };

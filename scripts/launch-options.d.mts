export function isLoopbackHost(host: string): boolean;
export function accessRefusal(env: { HOST: string; ADMIN_PASSWORD?: string }): string | null;
export function nextArgs(opts: { dev: boolean; port: number; host: string }): string[];
export function localUrl(opts: { host: string; port: number }): string;
